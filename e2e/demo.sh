#!/usr/bin/env bash
# `make demo`: the local control plane, the operator, and one synchronous deletion of a small tree:
# a Widget that owns three Widgets, each owning two ConfigMaps and one Pod with a 3 s grace period.
set -euo pipefail
cd "$(dirname "$0")/.."
NS=syncgc-demo
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "control plane"
e2e/cluster.sh up | tail -1
eval "$(e2e/cluster.sh env)"
JAR=operator/target/syncgc-operator.jar
[[ -f $JAR ]] || mvn -B -q -pl operator -am package -DskipTests

say "operator"
kubectl apply -f crds/ >/dev/null
LOG=${SYNCGC_CACHE:-$HOME/.cache/syncgc}/demo-operator.log
java -jar "$JAR" --http-port 18080 --waiting-event-interval 2s >"$LOG" 2>&1 &
OPERATOR=$!
trap 'kill $OPERATOR 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -sf localhost:18080/readyz >/dev/null && break; sleep 0.5; done
curl -sf localhost:18080/readyz >/dev/null || { tail -20 "$LOG"; exit 1; }
echo "ready (pid $OPERATOR, log $LOG)"

say "a tree to delete"
kubectl apply -f examples/widget-crd.yaml >/dev/null
kubectl wait --for condition=Established crd/widgets.example.syncgc.dev >/dev/null
kubectl create namespace $NS --dry-run=client -o yaml | kubectl apply -f - >/dev/null
until kubectl get serviceaccount default -n $NS >/dev/null 2>&1; do sleep 0.2; done
uid() { kubectl get "$1" "$2" -n $NS -o jsonpath='{.metadata.uid}'; }
owner() { printf '  ownerReferences: [{apiVersion: %s, kind: %s, name: %s, uid: %s}]\n' "$@"; }
kubectl apply -n $NS -f - >/dev/null <<YAML
apiVersion: example.syncgc.dev/v1
kind: Widget
metadata:
  name: shop
  annotations:
    syncgc.dev/propagation: Synchronous
    syncgc.dev/grace-period-seconds: "3"
YAML
until [[ $(kubectl get widget shop -n $NS -o jsonpath='{.metadata.finalizers}') == *GarbageCollectionInProgress* ]]; do sleep 0.2; done
SHOP=$(uid widget shop)
for part in frontend backend database; do
  { printf 'apiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: %s\n' $part
    owner example.syncgc.dev/v1 Widget shop "$SHOP"; } | kubectl apply -n $NS -f - >/dev/null
  P=$(uid widget $part)
  for i in 1 2; do
    { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-config-%s\n' $part $i
      owner example.syncgc.dev/v1 Widget $part "$P"; } | kubectl apply -n $NS -f - >/dev/null
  done
  { printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s-pod\n' $part
    owner example.syncgc.dev/v1 Widget $part "$P"
    printf 'spec:\n  nodeName: kwok-node-0\n  containers: [{name: app, image: registry.k8s.io/pause:3.10}]\n'; } \
    | kubectl apply -n $NS -f - >/dev/null
done
kubectl wait --for condition=Ready pod --all -n $NS --timeout 60s >/dev/null
kubectl get widgets,configmaps,pods -n $NS 2>/dev/null | grep -v kube-root-ca

say "kubectl delete widget shop (waits until every dependent is gone)"
start=$EPOCHREALTIME
kubectl delete widget shop -n $NS
end=$EPOCHREALTIME
awk -v s="$start" -v e="$end" 'BEGIN { printf "kubectl delete returned after %.1fs; left in the namespace:\n", e - s }'
kubectl get widgets,pods -n $NS 2>&1
kubectl get configmaps -n $NS --field-selector metadata.name!=kube-root-ca.crt 2>&1

say "what syncgc said (kubectl get events --field-selector source=syncgc)"
kubectl get events -n $NS --field-selector source=syncgc --sort-by=.lastTimestamp \
  -o custom-columns=OBJECT:.involvedObject.name,REASON:.reason,MESSAGE:.message

say "done"
echo "The control plane keeps running: eval \"\$(e2e/cluster.sh env)\" to use it, e2e/cluster.sh down to stop it."
