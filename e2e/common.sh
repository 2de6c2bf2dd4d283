# shellcheck shell=bash
# What the e2e scripts share: the versions of everything they build from Go modules (caches are
# keyed by them) and the helpers they have in common. Sourced by cluster.sh (the local control
# plane), docker.sh, images.sh, kind-images.sh and kind.sh, each of which defines its own die.

K8S_VERSION=v1.36.3
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
HELM_VERSION=v3.22.0
# promtool (the chart's alert rules are checked and unit-tested with it) from the Prometheus Go
# module, whose versions are v0.3MM.P for Prometheus 3.MM.P (`go list -m -versions github.com/prometheus/prometheus`).
PROMETHEUS_VERSION=v3.16.0
PROMETHEUS_MODULE_VERSION=v0.316.0
# chart-testing (`ct lint` of the chart, e2e/ct.sh) from its Go module (pinned in e2e/toolchain/ct/go.mod
# too), and the two Python tools it runs, from PyPI into a venv beside it; yamale at the version of ct's own image
CT_VERSION=v3.14.0
YAMLLINT_VERSION=1.38.0
YAMALE_VERSION=6.0.0
# render checks of the chart (e2e/chart-test.sh): the helm-unittest plugin (pinned in
# e2e/toolchain/helm-unittest/go.mod too, whose replace directive `go install` refuses) and kubeconform,
# from their Go modules; kubeconform's schemas come from the k8s.io/kubernetes module at K8S_VERSION
HELM_UNITTEST_VERSION=v1.1.2
KUBECONFORM_VERSION=v0.8.0
# helm-docs: the table of every value in helm/README.md, from values.yaml's comments (make chart-docs)
HELM_DOCS_VERSION=v1.14.2

# The operator image's SBOM and signature (e2e/sign.sh, `make dist-sign`): syft, cosign, and a
# throwaway registry on loopback to sign the image in, go-containerregistry's (pinned in
# e2e/toolchain/registry/go.mod too), from their Go modules
SYFT_VERSION=v1.57.1
COSIGN_VERSION=v3.1.3
GGCR_VERSION=v0.22.1

# kind and the parts of its base image, at the versions of kind's images/base/Dockerfile
KIND_VERSION=v0.33.0
CONTAINERD_VERSION=v2.3.4
RUNC_VERSION=v1.4.3
CRICTL_VERSION=v1.36.0
CNI_PLUGINS_VERSION=v1.9.1

# Version ldflags for a Kubernetes command built from the k8s.io/kubernetes module, so that it
# reports $K8S_VERSION (kubeadm refuses a v0.0.0-master build).
ldflags_k8s() {
  local minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  local flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

# go_install_cached DIR PACKAGE@VERSION: one command built from its Go module into DIR (cached: nothing to do
# when DIR holds it), atomically through DIR.tmp. Uses the calling script's log and die.
go_install_cached() {
  local dir=$1 pkg=$2
  [[ -x $dir/$(basename "${pkg%@*}") ]] && return
  command -v go >/dev/null || die "Go is required to build ${pkg%@*}"
  log "building ${pkg##*/}; first time only"
  rm -rf "$dir.tmp"
  GOBIN="$dir.tmp" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "$pkg"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# helm, into $BIN_HELM (the same place for cluster.sh, ct.sh and chart-test.sh: built once).
build_helm() { go_install_cached "$BIN_HELM" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"; }

# Installs Debian packages as root, refreshing the package lists once if they are missing or stale.
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}

# The Docker daemon this build talks to: installed and reachable, else how to get one.
require_docker() {
  command -v docker >/dev/null \
    || die "docker is not installed: install Docker (docs.docker.com/get-docker), or as root run: eval \"\$(e2e/docker.sh up)\""
  docker info >/dev/null 2>&1 \
    || die "the Docker daemon is not reachable at ${DOCKER_HOST:-the default socket}: start it (sudo systemctl start docker), or as root run: eval \"\$(e2e/docker.sh up)\""
}

# True when the Docker daemon holds the image $1.
have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# Capability names by number (linux/capability.h).
CAPS=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE
  NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT
  SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE
  AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ
  PERFMON BPF CHECKPOINT_RESTORE)

# The capabilities the kernel knows but this process's bounding set lacks (as in a sandbox without
# CAP_SYS_RESOURCE), one CAP_* name a line; nothing on a machine that grants them all.
missing_capabilities() {
  local bounding last i
  bounding=$((16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status)))
  last=$(cat /proc/sys/kernel/cap_last_cap)
  for ((i = 0; i <= last && i < ${#CAPS[@]}; i++)); do
    (( (bounding >> i) & 1 )) || echo "CAP_${CAPS[i]}"
  done
}

# Stops a process: TERM, up to 20 s for it to exit, then KILL.
terminate() { # pid
  local pid=$1
  kill "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 20))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
}
