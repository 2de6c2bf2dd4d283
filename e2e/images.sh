#!/usr/bin/env bash
# Container images built here, from source and Debian packages, with no container registry.
#
#   e2e/images.sh bases      Debian bookworm (debootstrap) and a JDK+Maven image on it
#   e2e/images.sh operator   the operator image from the repository's Dockerfile, on those bases
#                            (prints the image name as its last line)
#   e2e/images.sh pins [local]   `BUILD_IMAGE=... RUNTIME_IMAGE=...` naming the Dockerfile's public base
#                            images by digest (pulled if missing), or with `local` the bases built
#                            here (built if missing), for `make dist-image $(e2e/images.sh pins)`
#   e2e/images.sh pin REF    REF by digest: as given if it is; a registry's image (pulled if missing)
#                            as name@sha256:<manifest digest>; one built here as sha256:<image ID>
#   e2e/images.sh check-pinned REF...   exits 1 unless every REF names its image by digest
#
# Needs a Docker daemon (e2e/docker.sh up; DOCKER_HOST as it prints). Images are cached in the
# daemon and rebuilt only when missing; nothing is ever committed.
# Environment: SYNCGC_CACHE (default ~/.cache/syncgc), SYNCGC_DEBIAN_MIRROR (default deb.debian.org),
#              SYNCGC_OPERATOR_IMAGE (default syncgc/operator:dev), SYNCGC_EXTRA_CA_DIR (certificate
#              authorities the images trust besides Debian's; default /usr/local/share/ca-certificates)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
REPO=$(cd "$HERE/.." && pwd)
MIRROR=${SYNCGC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
DEBIAN=syncgc/debian:$SUITE
MAVEN=syncgc/maven:17-$SUITE
OPERATOR=${SYNCGC_OPERATOR_IMAGE:-syncgc/operator:dev}
EXTRA_CA_DIR=${SYNCGC_EXTRA_CA_DIR:-/usr/local/share/ca-certificates}


# A minimal Debian root file system, imported as an image: the base of every image here.
build_debian() {
  have_image "$DEBIAN" && return
  command -v debootstrap >/dev/null || {
    [[ $(id -u) == 0 ]] || die "debootstrap is missing; as root: apt-get install debootstrap"
    apt_install debootstrap || die "cannot install debootstrap with apt-get"
  }
  local rootfs=$CACHE/images/rootfs-$SUITE
  rm -rf "$rootfs"
  mkdir -p "$rootfs"
  log "debootstrap $SUITE from $MIRROR (first time only)"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$CACHE/images/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/images/debootstrap.log" >&2; die "debootstrap failed (see $CACHE/images/debootstrap.log)"; }
  printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$rootfs/etc/apt/sources.list"
  # the host's own certificate authorities (a TLS-inspecting egress proxy's, for instance), so that
  # Maven and apt inside the images trust what the host trusts; update-ca-certificates and the JDK's
  # trust store pick them up when the images install ca-certificates
  if compgen -G "$EXTRA_CA_DIR/*.crt" >/dev/null; then
    mkdir -p "$rootfs/usr/local/share/ca-certificates"
    cp "$EXTRA_CA_DIR"/*.crt "$rootfs/usr/local/share/ca-certificates/"
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import - "$DEBIAN" >/dev/null
  rm -rf "$rootfs"
  log "built $DEBIAN"
}

# An image of Debian packages on the base: $1 name, rest packages.
build_packages() {
  local image=$1
  shift
  have_image "$image" && return
  log "building $image ($*)"
  docker build --network host -q -t "$image" - >/dev/null <<EOF
FROM $DEBIAN
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $* \
 && update-ca-certificates && rm -rf /var/lib/apt/lists/*
EOF
}

cmd_bases() {
  require_docker
  mkdir -p "$CACHE/images"
  build_debian
  build_packages "$MAVEN" openjdk-17-jdk-headless maven ca-certificates
}

# A reference by digest: name@sha256:<64 hex> (a registry's manifest or index) or sha256:<64 hex> (an
# image ID: the digest of the image's configuration, which names each of its layers by digest).
is_pinned() { [[ $1 =~ ^[^@[:space:]]+@sha256:[0-9a-f]{64}$ || $1 =~ ^sha256:[0-9a-f]{64}$ ]]; }

# A Docker daemon without BuildKit (the classic builder) looks a name@sha256:... up only in a
# registry, never among the images built here, which have no registry digest: those are pinned by
# their image ID, which `FROM` takes as it is.
cmd_pin() {
  local ref=${1:?usage: e2e/images.sh pin NAME:TAG}
  if is_pinned "$ref"; then echo "$ref"; return; fi
  require_docker
  have_image "$ref" || docker pull -q "$ref" >/dev/null || die "no image $ref here, and it cannot be pulled"
  local digest
  digest=$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$ref" | head -1)
  [[ -n $digest ]] || digest=$(docker image inspect --format '{{.Id}}' "$ref")
  is_pinned "$digest" || die "no digest for $ref: $digest"
  echo "$digest"
}

cmd_pins() {
  local build runtime
  case $1 in
    local) cmd_bases; build=$MAVEN runtime=$DEBIAN ;;
    public) # the Dockerfile's defaults
      build=$(sed -n 's/^ARG BUILD_IMAGE=//p' "$REPO/Dockerfile")
      runtime=$(sed -n 's/^ARG RUNTIME_IMAGE=//p' "$REPO/Dockerfile")
      [[ -n $build && -n $runtime ]] || die "the Dockerfile has no ARG BUILD_IMAGE=... and RUNTIME_IMAGE=... defaults" ;;
    *) die "usage: e2e/images.sh pins [local]" ;;
  esac
  build=$(cmd_pin "$build")
  runtime=$(cmd_pin "$runtime")
  echo "BUILD_IMAGE=$build RUNTIME_IMAGE=$runtime"
}

cmd_check_pinned() {
  local ref
  (($#)) || die "usage: e2e/images.sh check-pinned REF..."
  for ref in "$@"; do
    is_pinned "$ref" || die "the base image '$ref' is not given by digest: a release names BUILD_IMAGE and RUNTIME_IMAGE as name@sha256:<digest> or sha256:<image ID> (e2e/images.sh pin NAME:TAG prints one; e2e/images.sh pins both, pins local those built here)"
  done
}

cmd_operator() {
  cmd_bases
  log "building $OPERATOR from $REPO/Dockerfile"
  local build runtime
  build=$(cmd_pin "$MAVEN")
  runtime=$(cmd_pin "$DEBIAN")
  docker build --network host -q -t "$OPERATOR" --build-arg "BUILD_IMAGE=$build" --build-arg "RUNTIME_IMAGE=$runtime" \
    "$REPO" >/dev/null || die "the operator image did not build (run the docker build above without -q to see why)"
  echo "$OPERATOR"
}

case ${1:-} in
  bases) cmd_bases ;;
  operator) cmd_operator ;;
  pins) cmd_pins "${2:-public}" ;;
  pin) shift; cmd_pin "$@" ;;
  check-pinned) shift; cmd_check_pinned "$@" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
