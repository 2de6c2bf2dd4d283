#!/usr/bin/env bash
# kind's base and node images, built here from source: Debian packages and Go modules, no registry.
#
#   e2e/kind-images.sh base   the base image (kind's images/base on Debian bookworm, with containerd,
#                             runc, crictl and the CNI plugins built from their Go modules)
#   e2e/kind-images.sh node   the node image for Kubernetes $K8S_VERSION on that base: kubelet, kubeadm,
#                             kubectl and every image the node runs, imported into its containerd
#                             under the names kubeadm asks for (prints the image name as its last line)
#   e2e/kind-images.sh binaries  only what both build from Go modules and C (cached; needs no Docker)
#
# kind's own `kind build node-image` cannot run without a registry (it pulls etcd, coredns, pause,
# kindnetd inside its build), so this repeats its steps (docs/kind.md says which and what differs).
# Binaries are cached in $SYNCGC_CACHE/bin, images in the Docker daemon; nothing is committed.
# Needs a Docker daemon (eval "$(e2e/docker.sh up)") and the Debian base (e2e/images.sh bases).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
DEBIAN=syncgc/debian:bookworm
BASE=syncgc/kind-base:$KIND_VERSION-bookworm
NODE=${SYNCGC_KIND_NODE_IMAGE:-syncgc/kind-node:$K8S_VERSION}
BIN_BASE=$CACHE/bin/kind-base-$KIND_VERSION
BIN_NODE=$CACHE/bin/kind-node-$K8S_VERSION
BIN_ETCD=$CACHE/bin/etcd-$ETCD_VERSION
BIN_K8S=$CACHE/bin/kubernetes-$K8S_VERSION # kube-apiserver, kube-controller-manager, kubectl (cluster.sh build)
WORK=$CACHE/images/kind

require() {
  command -v go >/dev/null || die "Go is required to build kind's parts (go.dev/dl)"
  require_docker
  have_image "$DEBIAN" || die "$DEBIAN is missing; run: e2e/images.sh bases"
}

kind_source() {
  go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}

build_base_binaries() {
  [[ -x $BIN_BASE/runc && -x $BIN_BASE/containerd && -x $BIN_BASE/crictl && -x $BIN_BASE/cni/ptp ]] && return
  log "building containerd $CONTAINERD_VERSION, runc $RUNC_VERSION, crictl $CRICTL_VERSION, CNI plugins $CNI_PLUGINS_VERSION; first time only"
  local tmp=$BIN_BASE.tmp cmd plugin
  rm -rf "$tmp" && mkdir -p "$tmp/cni" "$WORK"
  for cmd in containerd ctr containerd-shim-runc-v2; do
    go_install_cached "$tmp/$cmd" "github.com/containerd/containerd/v2/cmd/$cmd@$CONTAINERD_VERSION" \
      -tags "no_btrfs no_devmapper no_zfs no_aufs"
  done
  # runc needs cgo for seccomp (Debian's libseccomp-dev and pkg-config)
  pkg-config --exists libseccomp 2>/dev/null || {
    [[ $(id -u) == 0 ]] || die "runc needs libseccomp-dev and pkg-config; as root: apt-get install libseccomp-dev pkg-config"
    apt_install libseccomp-dev pkg-config || die "cannot install libseccomp-dev and pkg-config with apt-get"
  }
  CGO_ENABLED=1 go_install_cached "$tmp/runc" "github.com/opencontainers/runc@$RUNC_VERSION" -tags seccomp
  go_install_cached "$tmp/crictl" "sigs.k8s.io/cri-tools/cmd/crictl@$CRICTL_VERSION"
  for plugin in main/ptp main/loopback ipam/host-local meta/portmap; do
    go_install_cached "$tmp/cni/${plugin#*/}" "github.com/containernetworking/plugins/plugins/$plugin@$CNI_PLUGINS_VERSION"
  done
  rm -rf "$BIN_BASE" && mv "$tmp" "$BIN_BASE"
}

cmd_base() {
  require
  have_image "$BASE" && { log "$BASE present"; return; }
  build_base_binaries
  local ctx=$WORK/base-context src
  src=$(kind_source)
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -r "$src/images/base/files" "$ctx/files"
  cp -r "$BIN_BASE" "$ctx/bin"
  cp "$HERE/kind/10-syncgc-ptp.conflist" "$ctx/"
  chmod -R u+w "$ctx"
  log "building $BASE (kind's images/base/Dockerfile, on $DEBIAN)"
  # The steps of kind's images/base/Dockerfile, in the same order; binaries from the stage above.
  docker build --network host -q -t "$BASE" -f - "$ctx" >/dev/null <<EOF || die "the base image did not build"
FROM $DEBIAN
COPY files/usr/local/bin/ /usr/local/bin/
COPY files/kind/ /kind/
COPY files/LICENSES/ /LICENSES/
COPY files/etc/ /etc/
RUN chmod 0755 /usr/local/bin/* /kind /kind/bin /kind/bin/* \
 && DEBIAN_FRONTEND=noninteractive clean-install \
      systemd \
      conntrack iptables nftables iproute2 ethtool util-linux mount kmod \
      libseccomp2 pigz fuse-overlayfs \
      nfs-common open-iscsi \
      e2fsprogs \
      bash ca-certificates curl jq procps \
 && find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete \
 && rm -f /lib/systemd/system/multi-user.target.wants/* \
 && rm -f /etc/systemd/system/*.wants/* \
 && rm -f /lib/systemd/system/local-fs.target.wants/* \
 && rm -f /lib/systemd/system/sockets.target.wants/*udev* \
 && rm -f /lib/systemd/system/sockets.target.wants/*initctl* \
 && rm -f /lib/systemd/system/basic.target.wants/* \
 && echo "ReadKMsg=no" >> /etc/systemd/journald.conf \
 && ln -sf /usr/lib/systemd/systemd /sbin/init
RUN systemctl enable kubelet.service && systemctl enable containerd.service \
 && systemctl enable undo-mount-hacks.service && systemctl mask systemd-binfmt.service \
 && mkdir -p /etc/kubernetes/manifests
COPY bin/containerd bin/ctr bin/containerd-shim-runc-v2 bin/crictl /usr/local/bin/
COPY bin/runc /usr/local/sbin/runc
COPY bin/cni/ /opt/cni/bin/
# kindnetd is not served by the Go module proxy: a static CNI configuration (single node) instead
COPY 10-syncgc-ptp.conflist /etc/cni/net.d/
RUN ctr oci spec \
      | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
      | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json \
 && containerd --version && runc --version
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
EOF
  log "built $BASE"
}

build_node_binaries() {
  [[ -x $BIN_NODE/kubelet && -x $BIN_NODE/coredns && -x $BIN_NODE/pause ]] && return
  log "building Kubernetes $K8S_VERSION node binaries, coredns and pause; first time only"
  local tmp=$BIN_NODE.tmp cmd
  rm -rf "$tmp" && mkdir -p "$tmp" "$WORK"
  for cmd in kube-scheduler kube-proxy kubelet kubeadm; do
    (cd "$HERE/toolchain/kubernetes" && go_install_cached "$tmp/$cmd" "k8s.io/kubernetes/cmd/$cmd" -ldflags "$(ldflags_k8s)")
  done
  local coredns
  coredns=$("$tmp/kubeadm" config images list --kubernetes-version "$K8S_VERSION" | sed -n 's#.*/coredns:##p')
  [[ -n $coredns ]] || die "kubeadm names no coredns image"
  go_install_cached "$tmp/coredns" "github.com/coredns/coredns@$coredns"
  # pause is C: built from kubernetes' own source, statically
  local k8s_src
  k8s_src=$(cd "$HERE/toolchain/kubernetes" && go list -m -json k8s.io/kubernetes | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [[ -n $k8s_src ]] || die "k8s.io/kubernetes is not in the module cache (run e2e/cluster.sh build)"
  log "  gcc pause"
  gcc -Os -Wall -Werror -static -DVERSION="$(pause_tag "$tmp")" -o "$tmp/pause" "$k8s_src/build/pause/linux/pause.c"
  strip "$tmp/pause"
  rm -rf "$BIN_NODE" && mv "$tmp" "$BIN_NODE"
}

pause_tag() { # kubeadm's pause tag, from the kubeadm in $1
  "$1/kubeadm" config images list --kubernetes-version "$K8S_VERSION" | sed -n 's#.*/pause:##p'
}

# A component image: $1 name, $2 binary path, $3 path in the image, $4 extra Debian packages (or "")
component_image() {
  local name=$1 binary=$2 target=$3 packages=$4 ctx=$WORK/component
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp "$binary" "$ctx/binary"
  local install=""
  [[ -n $packages ]] && install="RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages && rm -rf /var/lib/apt/lists/*"
  docker build --network host -q -t "$name" -f - "$ctx" >/dev/null <<EOF || die "image $name did not build"
FROM $DEBIAN
$install
COPY binary $target
ENTRYPOINT ["$target"]
EOF
}

cmd_node() {
  require
  [[ -x $BIN_ETCD/etcd && -x $BIN_K8S/kube-apiserver ]] || die "the control plane is not built; run: e2e/cluster.sh build"
  if have_image "$NODE"; then log "$NODE present"; echo "$NODE"; return; fi
  cmd_base
  build_node_binaries
  local images=() line name
  log "building the node's images"
  while read -r line; do
    name=${line##*/}; name=${name%%:*}
    case $name in
      kube-apiserver|kube-controller-manager)
        component_image "$line" "$BIN_K8S/$name" "/usr/local/bin/$name" "" ;;
      kube-scheduler) component_image "$line" "$BIN_NODE/$name" "/usr/local/bin/$name" "" ;;
      kube-proxy)
        component_image "$line" "$BIN_NODE/kube-proxy" /usr/local/bin/kube-proxy "iptables nftables conntrack ipset kmod" ;;
      etcd) component_image "$line" "$BIN_ETCD/etcd" /usr/local/bin/etcd "" ;;
      coredns) component_image "$line" "$BIN_NODE/coredns" /coredns "" ;;
      pause) component_image "$line" "$BIN_NODE/pause" /pause "" ;;
      *) die "kubeadm asks for an image this script does not build: $line" ;;
    esac
    images+=("$line")
  done < <("$BIN_NODE/kubeadm" config images list --kubernetes-version "$K8S_VERSION")
  # containerd's sandbox image in kind's configuration may differ from kubeadm's pause tag
  local sandbox
  sandbox=$(sed -n 's/^ *sandbox_image = "\(.*\)"/\1/p' "$(kind_source)/images/base/files/etc/containerd/config.toml")
  if [[ -n $sandbox ]] && ! printf '%s\n' "${images[@]}" | grep -qx "$sandbox"; then
    docker tag "$(printf '%s\n' "${images[@]}" | grep /pause:)" "$sandbox"
    images+=("$sandbox")
  fi

  log "assembling $NODE"
  local c=syncgc-kind-node-build
  docker rm -f "$c" >/dev/null 2>&1 || true
  docker run -d --name "$c" --privileged --entrypoint sleep "$BASE" infinity >/dev/null
  local bin
  for bin in kubeadm kubelet; do docker cp "$BIN_NODE/$bin" "$c:/usr/bin/$bin"; done
  docker cp "$BIN_K8S/kubectl" "$c:/usr/bin/kubectl"
  docker exec "$c" sh -c "echo $K8S_VERSION >/kind/version && mkdir -p /kind/manifests"
  docker exec -d "$c" sh -c 'containerd >/var/log/containerd-build.log 2>&1'
  local ok=""
  for _ in $(seq 1 60); do
    docker exec "$c" ctr --timeout 2s version >/dev/null 2>&1 && { ok=1; break; }
    sleep 0.5
  done
  [[ -n $ok ]] || { docker exec "$c" cat /var/log/containerd-build.log >&2 || true; docker rm -f "$c" >/dev/null; die "containerd did not start in the build container"; }
  docker save "${images[@]}" | docker exec -i "$c" ctr -n k8s.io images import \
    --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >/dev/null \
    || { docker rm -f "$c" >/dev/null; die "importing the images into the node's containerd failed"; }
  docker exec "$c" sh -c 'pkill containerd; while pgrep -x containerd >/dev/null; do sleep 0.2; done; rm -f /var/log/containerd-build.log'
  docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' --change 'CMD []' "$c" "$NODE" >/dev/null
  docker rm -f "$c" >/dev/null
  log "built $NODE with ${images[*]}"
  echo "$NODE"
}

case ${1:-} in
  base) cmd_base ;;
  node) cmd_node ;;
  binaries) build_base_binaries && build_node_binaries ;; # the Go and C builds alone, no Docker (CI runs them early)
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
