#!/usr/bin/env bash
# A kind (Kubernetes in Docker) cluster for the end-to-end tests, for machines with Docker.
#
#   e2e/kind.sh up     create the cluster "syncgc" (if missing), build and load the operator image
#   e2e/kind.sh down   delete the cluster
#
# `up` prints `export KUBECONFIG=...` as its last line; with it set, `mvn verify` runs the tests
# against kind. kind has real nodes and no KWOK: Pods are bound to the first Ready node
# (or to $SYNCGC_E2E_NODE).
#
# Environment: KIND_NODE_IMAGE   node image, e.g. kindest/node:v1.36.x (default: kind's default)
#              SYNCGC_CACHE      where the kubeconfig goes (default ~/.cache/syncgc)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
NAME=syncgc
IMAGE=syncgc/operator:dev
CACHE=${SYNCGC_CACHE:-$HOME/.cache/syncgc}
KUBECONFIG_FILE=$CACHE/kind.kubeconfig

log() { printf '[kind] %s\n' "$*" >&2; }
die() { printf '[kind] error: %s\n' "$*" >&2; exit 1; }

require_tools() {
  command -v docker >/dev/null || die "docker is required (https://docs.docker.com/get-docker/)"
  docker info >/dev/null 2>&1 || die "docker is installed but the daemon is not reachable (is it running? may this user use it?)"
  command -v kind >/dev/null || die "kind is required (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)"
}

cluster_exists() {
  kind get clusters 2>/dev/null | grep -qx "$NAME"
}

cmd_up() {
  require_tools
  if cluster_exists; then
    log "cluster $NAME exists"
  else
    local image_args=()
    [[ -n ${KIND_NODE_IMAGE:-} ]] && image_args=(--image "$KIND_NODE_IMAGE")
    log "creating cluster $NAME ${KIND_NODE_IMAGE:+with $KIND_NODE_IMAGE}"
    # The ${a[@]+...} form keeps `set -u` happy with an empty array on bash 3.2 (macOS).
    kind create cluster --name "$NAME" ${image_args[@]+"${image_args[@]}"} --wait 120s >&2
  fi

  if [[ -f $ROOT/Dockerfile ]]; then
    log "building $IMAGE"
    docker build -t "$IMAGE" "$ROOT" >&2
    log "loading $IMAGE into $NAME"
    kind load docker-image "$IMAGE" --name "$NAME" >&2
  else
    log "no Dockerfile in $ROOT: no operator image built"
  fi

  mkdir -p "$CACHE"
  kind get kubeconfig --name "$NAME" >"$KUBECONFIG_FILE"
  chmod 600 "$KUBECONFIG_FILE"
  echo "export KUBECONFIG=$KUBECONFIG_FILE"
}

cmd_down() {
  command -v kind >/dev/null || die "kind is required (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)"
  if cluster_exists; then
    kind delete cluster --name "$NAME" >&2
  else
    log "no cluster $NAME"
  fi
  rm -f "$KUBECONFIG_FILE"
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
