# shellcheck shell=bash
# The versions of everything the e2e scripts build from Go modules, in one place, and the helpers
# those builds share; sourced by cluster.sh (the local control plane), docker.sh, images.sh,
# kind-images.sh and kind.sh. Caches are keyed by the versions.

K8S_VERSION=v1.36.3
ETCD_VERSION=v3.6.16
KWOK_VERSION=v0.8.0
HELM_VERSION=v3.22.0
# promtool (the chart's alert rules are checked and unit-tested with it) from the Prometheus Go
# module, whose versions are v0.3MM.P for Prometheus 3.MM.P (`go list -m -versions github.com/prometheus/prometheus`).
PROMETHEUS_VERSION=v3.16.0
PROMETHEUS_MODULE_VERSION=v0.316.0

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

# Installs Debian packages as root, refreshing the package lists once if they are missing or stale.
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}
