#!/usr/bin/env bash
# The chart's restricted RBAC mode on kind (helm/README.md, "What syncgc may touch (RBAC)"), on the
# release e2e/kind.sh up installed (`make test-kind` runs it after the kind suite; no new cluster):
#   a CRD kind Gizmo the operator will not be granted -> helm upgrade --reuse-values to
#   trackedKinds.everyServedKind=false with ConfigMaps only and no custom resource -> the operator's
#   ServiceAccount may list ConfigMaps, not Secrets nor Gizmos -> the new Pod's start warning names
#   Gizmo -> a Synchronous ConfigMap owner of DEPENDENTS ConfigMaps, one of them co-owned by a Gizmo,
#   deleted -> the owner and the others gone, the co-owned one kept with only the Gizmo's reference
#   (an owner syncgc may not see counts as keeping) -> a Gizmo given syncgc's finalizer by hand (as an
#   earlier cluster-wide mode of the release could have) -> helm uninstall succeeds: the Job releases
#   the ConfigMaps (none carries the finalizer after) and names Gizmo in one warning, leaving it alone.
# Exits non-zero at the first claim that does not hold, saying which. Uninstalls the release last
# (e2e/kind.sh up installs it again) and deletes what it created.
#
#   e2e/kind-restricted.sh    KUBECONFIG of the kind cluster (e2e/kind.sh up prints it)
#
# Environment: KUBECONFIG, SYNCGC_CACHE (helm and kubectl built by e2e/cluster.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:${SYNCGC_CACHE:-$HOME/.cache/syncgc}/tools"

RELEASE=syncgc
SYSTEM=syncgc-system
NS=syncgc-restricted
GROUP=restricted.syncgc.dev
CRD=gizmos.$GROUP
DEPENDENTS=20
SA=system:serviceaccount:$SYSTEM:$RELEASE
WARNING='kinds not seen, list and watch forbidden: '

started=$SECONDS
step() { printf '[restricted] %s (%ss)\n' "$*" "$((SECONDS - started))" >&2; }
fail() {
  printf '[restricted] FAIL: %s\n' "$*" >&2
  kubectl -n "$SYSTEM" get pods -o wide >&2 || true
  kubectl -n "$SYSTEM" logs deploy/$RELEASE --tail 30 >&2 || true
  exit 1
}
# waits up to $1 seconds for the command after it to succeed
until_true() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

helm status "$RELEASE" -n "$SYSTEM" >/dev/null 2>&1 || fail "no release $RELEASE in $SYSTEM: run e2e/kind.sh up first"
kubectl delete namespace "$NS" --ignore-not-found --wait=true >/dev/null

step "a CRD kind the restricted release is not granted: $CRD"
kubectl apply -f - >/dev/null <<EOF
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: $CRD}
spec:
  group: $GROUP
  names: {kind: Gizmo, plural: gizmos, singular: gizmo}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
EOF
kubectl wait --for condition=Established --timeout 60s "crd/$CRD" >/dev/null || fail "$CRD not established"

step "helm upgrade to the restricted mode: ConfigMaps only"
helm upgrade "$RELEASE" helm/syncgc -n "$SYSTEM" --reuse-values --wait --timeout 3m \
  --set trackedKinds.everyServedKind=false \
  --set-json 'trackedKinds.builtin=[{"group":"","kind":"ConfigMap","resource":"configmaps"}]' \
  --set-json 'trackedKinds.customResources=[]' >/dev/null || fail "helm upgrade to the restricted mode failed"
kubectl -n "$SYSTEM" rollout status deploy/$RELEASE --timeout 2m >/dev/null || fail "the restricted operator is not ready"
[[ $(kubectl auth can-i list configmaps --as "$SA" -A) == yes ]] || fail "$SA may not list ConfigMaps"
for resource in secrets "gizmos.$GROUP" pods; do
  [[ $(kubectl auth can-i list "$resource" --as "$SA" -A || true) == no ]] || fail "$SA may list $resource"
done

step "the start warning names the kind it may not list"
start_warning() { kubectl -n "$SYSTEM" logs deploy/$RELEASE 2>/dev/null | grep -F "$WARNING"; }
until_true 60 start_warning >/dev/null || fail "no '$WARNING' line in the operator's log"
line=$(start_warning | tail -1)
[[ $line == *"$GROUP/Gizmo"* ]] || fail "the start warning does not name $GROUP/Gizmo: $line"
printf '%s\n' "${line:0:300}" >&2

step "a Synchronous ConfigMap owner of $DEPENDENTS ConfigMaps, one co-owned by a Gizmo"
kubectl create namespace "$NS" >/dev/null
kubectl -n "$NS" apply -f - >/dev/null <<EOF
apiVersion: $GROUP/v1
kind: Gizmo
metadata: {name: keeper}
EOF
kubectl -n "$NS" create configmap owner >/dev/null
kubectl -n "$NS" annotate configmap owner syncgc.dev/propagation=Synchronous >/dev/null
has_finalizer() { [[ $(kubectl -n "$NS" get configmap owner -o jsonpath='{.metadata.finalizers}') == *syncgc.dev/GarbageCollectionInProgress* ]]; }
until_true 30 has_finalizer || fail "the owner did not get syncgc's finalizer"
owner=$(kubectl -n "$NS" get configmap owner -o jsonpath='{.metadata.uid}')
keeper=$(kubectl -n "$NS" get gizmo keeper -o jsonpath='{.metadata.uid}')
ref() { printf '{"apiVersion":"%s","kind":"%s","name":"%s","uid":"%s","blockOwnerDeletion":true}' "$@"; }
to_owner=$(ref v1 ConfigMap owner "$owner")
{
  printf '{"apiVersion":"v1","kind":"List","items":['
  for ((i = 1; i < DEPENDENTS; i++)); do
    printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dependent-%s","ownerReferences":[%s]}},' "$i" "$to_owner"
  done
  printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared","ownerReferences":[%s,%s]}}]}' \
    "$to_owner" "$(ref "$GROUP/v1" Gizmo keeper "$keeper")"
} | kubectl -n "$NS" create -f - >/dev/null

step "the owner deleted"
kubectl -n "$NS" delete configmap owner --wait=false >/dev/null
owner_gone() { ! kubectl -n "$NS" get configmap owner >/dev/null 2>&1; }
until_true 60 owner_gone || fail "the owner is still there after 60 s: $(kubectl -n "$NS" get configmap owner -o jsonpath='{.metadata}')"
left=$(kubectl -n "$NS" get configmaps -o jsonpath='{range .items[*]}{.metadata.name}{" "}{end}')
[[ $left == "kube-root-ca.crt shared " || $left == "shared kube-root-ca.crt " ]] \
  || fail "left after the cascade: '$left' (expected the co-owned 'shared' only)"
refs=$(kubectl -n "$NS" get configmap shared -o jsonpath='{.metadata.ownerReferences[*].uid}')
[[ $refs == "$keeper" ]] || fail "shared's owner references are '$refs', expected only the Gizmo's $keeper"
[[ -z $(kubectl -n "$NS" get configmap shared -o jsonpath='{.metadata.deletionTimestamp}') ]] || fail "shared is being deleted"

step "helm uninstall: the ConfigMaps released, the Gizmo (finalized by an earlier mode) named and left alone"
kubectl -n "$NS" create configmap held >/dev/null
kubectl -n "$NS" annotate configmap held syncgc.dev/propagation=Synchronous >/dev/null
finalized() { [[ $(kubectl -n "$NS" get "$1" "$2" -o jsonpath='{.metadata.finalizers}') == *syncgc.dev/GarbageCollectionInProgress* ]]; }
until_true 30 finalized configmap held || fail "the ConfigMap 'held' did not get syncgc's finalizer"
kubectl -n "$NS" patch gizmo keeper --type merge -p '{"metadata":{"finalizers":["syncgc.dev/GarbageCollectionInProgress"]}}' >/dev/null
job_log=$(mktemp)
# the Job is deleted once it succeeds (hook-succeeded): its log is followed while it runs
(
  for ((i = 0; i < 240; i++)); do
    pod=$(kubectl -n "$SYSTEM" get pods -l job-name=$RELEASE-release -o name 2>/dev/null | head -1)
    [[ -n $pod ]] && kubectl -n "$SYSTEM" logs -f "$pod" >"$job_log" 2>/dev/null && break
    sleep 0.5
  done
) &
follower=$!
helm uninstall "$RELEASE" -n "$SYSTEM" --timeout 4m >/dev/null || { kubectl -n "$SYSTEM" logs "job/$RELEASE-release" >&2 || true; fail "helm uninstall of the restricted release failed"; }
wait "$follower" || true
line=$(grep -F 'kinds not released, list forbidden' "$job_log" || true)
[[ $line == *"gizmos.$GROUP"* ]] || { cat "$job_log" >&2; fail "no warning naming gizmos.$GROUP in the Job's log"; }
grep -q 'release finished released=[1-9]' "$job_log" || { cat "$job_log" >&2; fail "the Job released nothing"; }
printf '%s\n' "${line:0:300}" >&2
rm -f "$job_log"
finalized configmap held && fail "the ConfigMap 'held' still carries syncgc's finalizer"
held=$(kubectl get configmaps -A -o jsonpath='{range .items[?(@.metadata.finalizers)]}{.metadata.namespace}/{.metadata.name}: {.metadata.finalizers}{"\n"}{end}' \
  | grep -F syncgc.dev/GarbageCollectionInProgress || true)
[[ -z $held ]] || fail "ConfigMaps still carrying syncgc's finalizer after the uninstall: $held"
finalized gizmo keeper || fail "the Gizmo lost syncgc's finalizer: the Job was not to touch a kind it may not list"

step "cleaning up"
kubectl -n "$NS" patch gizmo keeper --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
kubectl delete namespace "$NS" --wait=false >/dev/null
kubectl delete crd "$CRD" --wait=false >/dev/null
step "ok: the restricted mode named Gizmo at start, deleted $((DEPENDENTS - 1)) dependents and kept the co-owned one; helm uninstall released the ConfigMaps and named Gizmo"
