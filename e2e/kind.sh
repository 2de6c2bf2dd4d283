#!/usr/bin/env bash
# A kind (Kubernetes in Docker) cluster with syncgc installed by its Helm chart, for machines with Docker.
#
#   e2e/kind.sh up       create the cluster "syncgc" (if missing), build the operator image from the
#                        Dockerfile, load it into the node and `helm install` the chart with it;
#                        the last line printed is `export KUBECONFIG=...`
#   e2e/kind.sh cluster  create the cluster only (if missing), no chart; prints `export KUBECONFIG=...`
#   e2e/kind.sh image    create the cluster only (if missing), build the operator image from the
#                        Dockerfile and load it into the node, no chart; prints `export KUBECONFIG=...`
#   e2e/kind.sh load IMAGE   load an image from the Docker daemon into the cluster's node
#   e2e/kind.sh namespace    create the release namespace (if missing) enforcing Pod Security
#                        `restricted`, as `up` does before it installs the chart; checks that a Pod
#                        the level forbids is refused there
#   e2e/kind.sh down     uninstall the chart and delete the cluster (nothing else is touched)
#   e2e/kind.sh status   what exists
#
# Images: by default kind's own node image (kindest/node, pulled from its registry) and the
# Dockerfile's public base images. With SYNCGC_OFFLINE=1 (no registry reachable, as on this project's
# CI) both are built here from Debian packages and Go modules: e2e/images.sh and e2e/kind-images.sh.
# KIND_NODE_IMAGE names any other node image.
#
# Environment: KIND_NODE_IMAGE, SYNCGC_OFFLINE, SYNCGC_CACHE (default ~/.cache/syncgc),
#              SYNCGC_KIND_CLUSTER (default syncgc), SYNCGC_KIND_REPLICAS (operator replicas, default 1),
#              SYNCGC_KIND_VALUES (a values file for helm install, e.g. e2e/kind/e2e-values.yaml)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
NAME=${SYNCGC_KIND_CLUSTER:-syncgc}
# shellcheck source=common.sh
source "$HERE/common.sh"
IMAGE=syncgc/operator:dev
RELEASE=syncgc
NAMESPACE=syncgc-system
KUBECONFIG_FILE=$CACHE/kind-$NAME.kubeconfig
OFFLINE=${SYNCGC_OFFLINE:-}

# kind, helm and kubectl: from PATH, else built from their Go modules into the cache
tool() {
  local name=$1
  case $name in
    kind)
      command -v kind >/dev/null && { command -v kind; return; }
      local kind=$CACHE/bin/kind-$KIND_VERSION/kind
      [[ -x $kind ]] || command -v go >/dev/null \
        || die "kind is not installed and Go is missing to build it: see kind.sigs.k8s.io/docs/user/quick-start"
      go_install_cached "$kind" "sigs.k8s.io/kind@$KIND_VERSION"
      echo "$kind" ;;
    helm|kubectl)
      command -v "$name" >/dev/null && { command -v "$name"; return; }
      "$HERE/cluster.sh" build >&2 || die "$name is not installed and could not be built (e2e/cluster.sh build)"
      echo "$CACHE/tools/$name" ;;
  esac
}

cluster_exists() {
  "$KIND" get clusters 2>/dev/null | grep -qx "$NAME"
}

node_image() {
  if [[ -n ${KIND_NODE_IMAGE:-} ]]; then
    echo "$KIND_NODE_IMAGE"
  elif [[ -n $OFFLINE ]]; then
    "$HERE/cluster.sh" build >&2
    "$HERE/images.sh" bases >&2
    "$HERE/kind-images.sh" node | tail -1
  fi
}

# kind's cluster configuration, one node:
# - the offline node image has no kindnetd (not served by the Go module proxy), only a static CNI
#   configuration, so kind must not install its default CNI;
# - on a cgroup v1 host kubelet 1.36 refuses to start unless told otherwise (failCgroupV1);
# - where this machine cannot grant CAP_SYS_RESOURCE (a sandbox; e2e/docker.sh says so when it
#   starts dockerd), runc in the node cannot lower a container's oom_score_adj, as kubelet asks for
#   its Pods: containerd then keeps it no lower than its own (restrict_oom_score_adj, as kind does
#   for rootless nodes).
write_config() {
  local file=$1
  {
    printf 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n'
    [[ -n $OFFLINE && -z ${KIND_NODE_IMAGE:-} ]] && printf 'networking:\n  disableDefaultCNI: true\n'
    if [[ $(docker info --format '{{.CgroupVersion}}' 2>/dev/null) == 1 ]]; then
      printf 'kubeadmConfigPatches:\n- |\n  kind: KubeletConfiguration\n  failCgroupV1: false\n'
    fi
    if missing_capabilities | grep -qx CAP_SYS_RESOURCE; then
      printf 'containerdConfigPatches:\n- |-\n  [plugins."io.containerd.grpc.v1.cri"]\n    restrict_oom_score_adj = true\n'
    fi
  } >"$file"
}

operator_image() {
  if [[ -n $OFFLINE ]]; then
    "$HERE/images.sh" operator >&2 || die "the operator image did not build (e2e/images.sh operator)"
  else
    log "building $IMAGE from $ROOT/Dockerfile"
    docker build -t "$IMAGE" "$ROOT" >&2 || die "the operator image did not build (docker build $ROOT)"
  fi
}

# the cluster, created if missing; KUBECONFIG_FILE written
ensure_cluster() {
  require_docker
  KIND=$(tool kind)
  mkdir -p "$CACHE"
  if cluster_exists; then
    log "cluster $NAME exists"
  else
    local image config=$CACHE/kind-$NAME.yaml
    image=$(node_image)
    write_config "$config"
    log "creating cluster $NAME${image:+ with $image}"
    "$KIND" create cluster --name "$NAME" ${image:+--image "$image"} --config "$config" \
      --kubeconfig "$KUBECONFIG_FILE" --wait 180s >&2 || die "kind create cluster failed (kind export logs --name $NAME shows why)"
  fi
  "$KIND" get kubeconfig --name "$NAME" >"$KUBECONFIG_FILE"
  chmod 600 "$KUBECONFIG_FILE"
}

load_image() {
  log "loading $1 into $NAME"
  "$KIND" load docker-image "$1" --name "$NAME" >&2 || die "kind load docker-image $1 failed"
}

# The release namespace enforces Pod Security `restricted`, as a hardened cluster does: the chart's
# Pods (operator, uninstall Job, helm test) must pass it, or the Deployment gets no Pod and helm's
# --wait fails. A Pod the level forbids (root, privilege escalation, no seccomp profile) is refused
# with a server-side dry run, so a cluster that does not enforce the label fails here.
release_namespace() {
  local kubectl out
  kubectl=$(tool kubectl)
  KUBECONFIG=$KUBECONFIG_FILE "$kubectl" get namespace "$NAMESPACE" >/dev/null 2>&1 \
    || KUBECONFIG=$KUBECONFIG_FILE "$kubectl" create namespace "$NAMESPACE" >&2
  KUBECONFIG=$KUBECONFIG_FILE "$kubectl" label --overwrite namespace "$NAMESPACE" \
    pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest \
    pod-security.kubernetes.io/warn=restricted pod-security.kubernetes.io/warn-version=latest >&2
  # a new namespace's default ServiceAccount comes a moment later (kube-controller-manager), and the API
  # server refuses any Pod before it, dry runs too
  local i
  for ((i = 0; i < 60; i++)); do
    KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" get serviceaccount default >/dev/null 2>&1 && break
    sleep 1
  done
  if out=$(KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" run psa-probe --image=syncgc/operator:dev \
    --restart=Never --dry-run=server 2>&1); then
    die "namespace $NAMESPACE admits a Pod that Pod Security 'restricted' forbids: is the PodSecurity admission plugin on?"
  fi
  grep -q 'violates PodSecurity "restricted' <<<"$out" || die "the probe Pod was refused for another reason: $out"
  log "namespace $NAMESPACE enforces Pod Security restricted"
}

cmd_up() {
  ensure_cluster
  local helm kubectl
  helm=$(tool helm)
  kubectl=$(tool kubectl)
  release_namespace
  operator_image
  load_image "$IMAGE"

  local upgrade=""
  KUBECONFIG=$KUBECONFIG_FILE "$helm" status "$RELEASE" --namespace "$NAMESPACE" >/dev/null 2>&1 && upgrade=1
  log "helm install $RELEASE (namespace $NAMESPACE)"
  KUBECONFIG=$KUBECONFIG_FILE "$helm" upgrade --install "$RELEASE" "$ROOT/helm/syncgc" \
    --namespace "$NAMESPACE" --create-namespace --wait --timeout 5m \
    --set image.repository="${IMAGE%%:*}" --set image.tag="${IMAGE##*:}" --set image.pullPolicy=Never \
    --set replicaCount="${SYNCGC_KIND_REPLICAS:-1}" ${SYNCGC_KIND_VALUES:+-f "$SYNCGC_KIND_VALUES"} >&2 \
    || { KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" describe pods >&2 || true; die "helm install failed"; }
  # an upgrade with a new image under the same tag: the running Pods must take it
  [[ -n $upgrade ]] && KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" rollout restart deployment >&2
  KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" rollout status deployment --timeout 3m >&2 \
    || die "the operator did not become ready (kubectl -n $NAMESPACE describe pods)"
  KUBECONFIG=$KUBECONFIG_FILE "$kubectl" -n "$NAMESPACE" get pods -o wide >&2
  echo "export KUBECONFIG=$KUBECONFIG_FILE"
}

cmd_down() {
  require_docker # else kind lists no cluster and one that exists would be left behind
  KIND=$(tool kind)
  if cluster_exists; then
    "$KIND" delete cluster --name "$NAME" >&2
  else
    log "no cluster $NAME"
  fi
  rm -f "$KUBECONFIG_FILE" "$CACHE/kind-$NAME.yaml"
}

cmd_status() {
  require_docker
  KIND=$(tool kind)
  if cluster_exists; then
    "$KIND" get kubeconfig --name "$NAME" >"$KUBECONFIG_FILE"
    log "cluster $NAME exists; KUBECONFIG=$KUBECONFIG_FILE"
    KUBECONFIG=$KUBECONFIG_FILE "$(tool kubectl)" -n "$NAMESPACE" get pods >&2 || true
  else
    log "no cluster $NAME"
  fi
}

case ${1:-} in
  up) cmd_up ;;
  cluster) ensure_cluster && echo "export KUBECONFIG=$KUBECONFIG_FILE" ;;
  image) ensure_cluster && operator_image && load_image "$IMAGE" && echo "export KUBECONFIG=$KUBECONFIG_FILE" ;;
  load) [[ -n ${2:-} ]] || die "usage: e2e/kind.sh load IMAGE"; ensure_cluster && load_image "$2" ;;
  namespace) ensure_cluster && release_namespace ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
