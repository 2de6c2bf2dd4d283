#!/usr/bin/env bash
# A real, local Kubernetes control plane on loopback, built from source through the Go module proxy.
#
#   e2e/cluster.sh build                      build the binaries (cached, keyed by version)
#   e2e/cluster.sh up                         start etcd, kube-apiserver, kube-controller-manager, KWOK
#   e2e/cluster.sh env                        print the exports for KUBECONFIG and PATH
#   e2e/cluster.sh status                     say what runs
#   e2e/cluster.sh down                       stop what `up` started and remove the cluster's data
#   e2e/cluster.sh restart-kcm                restart kube-controller-manager only (SYNCGC_KCM_EXTRA_ARGS)
#   e2e/cluster.sh restart-apiserver          restart kube-apiserver only (etcd and its data kept)
#   e2e/cluster.sh restart-etcd               restart etcd only, its data kept
#   e2e/cluster.sh audit-log                  print the path of kube-apiserver's audit log
#   e2e/cluster.sh builtin-gc                 print on or off: whether kube-controller-manager runs its garbage collector
#   e2e/cluster.sh sa-kubeconfig NS NAME [F]  write a kubeconfig for a ServiceAccount
#
# Binaries are cached in $SYNCGC_CACHE (default ~/.cache/syncgc) and never enter the repository.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

BIN_K8S=$CACHE/bin/kubernetes-$K8S_VERSION
BIN_ETCD=$CACHE/bin/etcd-$ETCD_VERSION
BIN_KWOK=$CACHE/bin/kwok-$KWOK_VERSION
BIN_PROMTOOL=$CACHE/bin/promtool-$PROMETHEUS_MODULE_VERSION
TOOLS=$CACHE/tools   # kubectl, helm and promtool, linked, for PATH
DATA=${SYNCGC_CLUSTER_DIR:-$CACHE/cluster}
PKI=$DATA/pki
LOGS=$DATA/logs
PIDS=$DATA/pids
KUBECONFIG_FILE=$DATA/admin.kubeconfig

ETCD_PORT=${SYNCGC_ETCD_PORT:-23790}
ETCD_PEER_PORT=${SYNCGC_ETCD_PEER_PORT:-23800}
APISERVER_PORT=${SYNCGC_APISERVER_PORT:-16443}
KCM_PORT=${SYNCGC_KCM_PORT:-16257}
KWOK_PORT=${SYNCGC_KWOK_PORT:-16080}
NODE_NAME=kwok-node-0

# ---------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------

build_kubernetes() {
  [[ -x $BIN_K8S/kube-apiserver && -x $BIN_K8S/kube-controller-manager && -x $BIN_K8S/kubectl ]] && return
  log "building Kubernetes $K8S_VERSION (kube-apiserver, kube-controller-manager, kubectl); first time only"
  local cmd
  for cmd in kube-apiserver kube-controller-manager kubectl; do
    (cd "$HERE/toolchain/kubernetes" && go_install_cached "$BIN_K8S/$cmd" "k8s.io/kubernetes/cmd/$cmd" -ldflags "$(ldflags_k8s)")
  done
}

build_etcd() {
  (cd "$HERE/toolchain/etcd" && go_install_cached "$BIN_ETCD/etcd" go.etcd.io/etcd/server/v3)
}

build_kwok() {
  go_install_cached "$BIN_KWOK/kwok" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  [[ -d $BIN_KWOK/stage ]] && return
  # The stage files (node init, pod ready, pod graceful delete) ship in the module's source.
  local src
  src=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  rm -rf "$BIN_KWOK/stage.tmp" && mkdir -p "$BIN_KWOK/stage.tmp"
  cp "$src"/kustomize/stage/node/fast/node-*.yaml "$src"/kustomize/stage/pod/general/pod-*.yaml "$BIN_KWOK/stage.tmp/"
  chmod -R u+w "$BIN_KWOK/stage.tmp"
  mv "$BIN_KWOK/stage.tmp" "$BIN_KWOK/stage"
}

build_promtool() {
  # remove_all_sd leaves out the service-discovery plugins (cloud SDKs), which rule checks and
  # rule unit tests do not need.
  go_install_cached "$BIN_PROMTOOL/promtool" "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION" \
    -tags remove_all_sd -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION#v}"
}

cmd_build() {
  command -v go >/dev/null || die "Go is required to build the control plane (go.dev/dl)"
  build_etcd
  build_kubernetes
  build_kwok
  build_helm
  build_promtool
  mkdir -p "$TOOLS"
  ln -sf "$BIN_K8S/kubectl" "$TOOLS/kubectl"
  ln -sf "$BIN_HELM/helm" "$TOOLS/helm"
  ln -sf "$BIN_PROMTOOL/promtool" "$TOOLS/promtool"
}

# ---------------------------------------------------------------------------------------------
# certificates and kubeconfigs
# ---------------------------------------------------------------------------------------------

gen_cert() { # name CN O [server]
  local name=$1 cn=$2 org=$3 server=${4:-}
  local subj="/CN=$cn"; [[ -n $org ]] && subj="/O=$org/CN=$cn"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
  local ext="$PKI/$name.ext"
  if [[ -n $server ]]; then
    printf 'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\nextendedKeyUsage=serverAuth\n' >"$ext"
  else
    printf 'extendedKeyUsage=clientAuth\n' >"$ext"
  fi
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -extfile "$ext" -out "$PKI/$name.crt" 2>/dev/null
}

write_kubeconfig() { # file user-name namespace user-fields...
  local file=$1 user=$2 namespace=$3; shift 3
  {
    printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: syncgc-local\n  cluster:\n'
    printf '    server: https://127.0.0.1:%s\n    certificate-authority: %s\n' "$APISERVER_PORT" "$PKI/ca.crt"
    printf 'users:\n- name: %s\n  user:\n' "$user"
    printf '    %s\n' "$@"
    printf 'contexts:\n- name: syncgc-local\n  context: {cluster: syncgc-local, user: %s%s}\n' "$user" \
      "${namespace:+, namespace: $namespace}"
    printf 'current-context: syncgc-local\n'
  } >"$file"
}

cert_kubeconfig() { # file cert-name
  write_kubeconfig "$1" "$2" "" "client-certificate: $PKI/$2.crt" "client-key: $PKI/$2.key"
}

make_pki() {
  [[ -f $PKI/ca.crt ]] && return
  mkdir -p "$PKI"
  openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -subj "/CN=syncgc-local-ca" \
    -days 3650 -out "$PKI/ca.crt" 2>/dev/null
  gen_cert apiserver kube-apiserver "" server
  gen_cert admin admin system:masters
  gen_cert kcm system:kube-controller-manager ""
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  cert_kubeconfig "$KUBECONFIG_FILE" admin
  cert_kubeconfig "$DATA/kcm.kubeconfig" kcm
}

# ---------------------------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------------------------

running() { # name: its pid file names a live process that is still that program
  local f=$PIDS/$1.pid pid
  [[ -f $f ]] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "/$1 "
}

start() { # name command...
  local name=$1; shift
  if running "$name"; then return; fi
  mkdir -p "$LOGS" "$PIDS"
  setsid "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
  echo $! >"$PIDS/$name.pid"
  log "started $name (pid $!, log $LOGS/$name.log)"
}

wait_for() { # description seconds command...
  local what=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what not ready after ${secs}s; see $LOGS"
    sleep 0.5
  done
}

kubectl_admin() { "$BIN_K8S/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

start_kcm() {
  start kube-controller-manager "$BIN_K8S/kube-controller-manager" \
    --kubeconfig "$DATA/kcm.kubeconfig" \
    --authentication-kubeconfig "$DATA/kcm.kubeconfig" --authorization-kubeconfig "$DATA/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
    --controllers "${SYNCGC_KCM_CONTROLLERS:-garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller}" \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --use-service-account-credentials=true --leader-elect=false \
    ${SYNCGC_KCM_EXTRA_ARGS:-} --v 1
  wait_for kube-controller-manager 60 curl -sfk "https://127.0.0.1:$KCM_PORT/healthz"
}

start_etcd() {
  start etcd "$BIN_ETCD/etcd" --name syncgc-local --data-dir "$DATA/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "syncgc-local=http://127.0.0.1:$ETCD_PEER_PORT" \
    --quota-backend-bytes 8589934592 --unsafe-no-fsync --log-level warn
  wait_for etcd 60 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
}

# The API server's audit log records what one identity changes (SYNCGC_AUDIT_USER; by default the
# ServiceAccount the soak runs syncgc as): every DELETE, PATCH and UPDATE with its request body, so
# that a test can check each change syncgc sent. Everything else is not logged.
write_audit_policy() {
  cat >"$DATA/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Request
  users: ["${SYNCGC_AUDIT_USER:-system:serviceaccount:syncgc-soak:operator}"]
  verbs: [delete, deletecollection, patch, update]
- level: None
EOF
}

start_apiserver() {
  start kube-apiserver "$BIN_K8S/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$APISERVER_PORT" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --authorization-mode RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --api-audiences https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range 10.96.0.0/16 \
    --allow-privileged \
    --max-requests-inflight 1000 --max-mutating-requests-inflight 500 \
    --audit-policy-file "$DATA/audit-policy.yaml" --audit-log-path "$LOGS/audit.log" \
    --audit-log-maxsize 200 --audit-log-maxbackup 2 \
    --v 1
  wait_for kube-apiserver 120 "$BIN_K8S/kubectl" --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz
}

# Restarts of one component with its data kept: faults the soak injects mid-cascade.
cmd_restart_apiserver() {
  running kube-apiserver || die "the control plane is not running (e2e/cluster.sh up)"
  stop_one kube-apiserver
  start_apiserver
}

cmd_restart_etcd() {
  running etcd || die "the control plane is not running (e2e/cluster.sh up)"
  stop_one etcd
  start_etcd
}

# Stops only kube-controller-manager and starts it again with the current SYNCGC_KCM_EXTRA_ARGS
# (the benchmark raises its --kube-api-qps/--kube-api-burst this way); the rest keeps running.
cmd_restart_kcm() {
  running kube-apiserver || die "the control plane is not running (e2e/cluster.sh up)"
  stop_one kube-controller-manager
  start_kcm
}

cmd_up() {
  cmd_build
  mkdir -p "$DATA"
  make_pki

  start_etcd

  write_audit_policy
  start_apiserver

  start_kcm

  start kwok "$BIN_KWOK/kwok" --kubeconfig "$KUBECONFIG_FILE" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --disregard-status-with-annotation-selector kwok.x-k8s.io/status=custom \
    --cidr 10.0.0.1/24 --node-ip 10.0.0.1 --node-port 0 \
    --server-address "127.0.0.1:$KWOK_PORT" \
    $(for f in "$BIN_KWOK"/stage/*.yaml; do printf -- '--config %s ' "$f"; done)
  ensure_node
  wait_for "node $NODE_NAME" 60 node_ready
  wait_for "default ServiceAccount" 60 kubectl_admin get serviceaccount default -n default

  cmd_env | head -1
}

node_ready() {
  [[ $(kubectl_admin get node "$NODE_NAME" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') == True ]]
}

ensure_node() {
  kubectl_admin apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $NODE_NAME
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: $NODE_NAME
    type: kwok
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "1000"}
  capacity: {cpu: "64", memory: 256Gi, pods: "1000"}
EOF
}

cmd_env() {
  echo "export KUBECONFIG=$KUBECONFIG_FILE"
  echo "export PATH=$TOOLS:\$PATH"
}

cmd_status() {
  local name any=0
  for name in etcd kube-apiserver kube-controller-manager kwok; do
    if running "$name"; then echo "$name: running (pid $(cat "$PIDS/$name.pid"))"; any=1
    else echo "$name: stopped"; fi
  done
  if ((any)) && [[ -x $BIN_K8S/kubectl ]]; then
    kubectl_admin version 2>/dev/null | sed 's/^/  /' || true
  fi
}

cmd_down() {
  local name
  for name in kwok kube-controller-manager kube-apiserver etcd; do
    stop_one "$name"
  done
  rm -rf "$DATA"
}

stop_one() { # name: stop what its pid file names, if it is still that program
  local name=$1
  [[ -f $PIDS/$name.pid ]] || return 0
  local pid; pid=$(cat "$PIDS/$name.pid")
  if running "$name"; then
    terminate "$pid"
    log "stopped $name (pid $pid)"
  fi
  rm -f "$PIDS/$name.pid"
}

# kube-controller-manager's /healthz?verbose lists each controller it runs; SYNCGC_KCM_CONTROLLERS
# without garbage-collector-controller (make e2e-nogc) leaves the built-in collector out.
cmd_builtin_gc() {
  running kube-controller-manager || die "kube-controller-manager is not running (e2e/cluster.sh up)"
  local health
  health=$(curl -sfk "https://127.0.0.1:$KCM_PORT/healthz?verbose") || die "no answer from kube-controller-manager on port $KCM_PORT"
  if grep -q '^\[[+-]\]garbage-collector-controller ' <<<"$health"; then echo on; else echo off; fi
}

cmd_sa_kubeconfig() { # namespace name [file]
  local ns=${1:?namespace} name=${2:?service account name}
  local out=${3:-$DATA/sa-$ns-$name.kubeconfig}
  local token
  token=$(kubectl_admin create token "$name" -n "$ns" --duration 24h)
  write_kubeconfig "$out" "$ns-$name" "$ns" "token: $token"
  echo "$out"
}

case ${1:-} in
  build) cmd_build ;;
  up) cmd_up ;;
  env) cmd_env ;;
  status) cmd_status ;;
  down) cmd_down ;;
  restart-kcm) cmd_restart_kcm ;;
  restart-apiserver) cmd_restart_apiserver ;;
  restart-etcd) cmd_restart_etcd ;;
  sa-kubeconfig) shift; cmd_sa_kubeconfig "$@" ;;
  audit-log) echo "$LOGS/audit.log" ;;
  builtin-gc) cmd_builtin_gc ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
