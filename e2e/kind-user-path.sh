#!/usr/bin/env bash
# A user's first hour on kind, from the release artifacts only (docs/usage.md, "Install"), checked step by step:
#   make dist + make dist-image -> kind load -> helm install of dist/syncgc-<version>.tgz (only the
#   image repository set) -> helm test -> the kubectl plugin unpacked from the krew archive as krew
#   would (sha256 of the manifest checked) -> two trees of 1,000 dependents deleted with
#   `kubectl syncgc delete`, plain lines and -o json -> `helm uninstall` with the chart's default
#   values while an owner is held mid-deletion by a foreign finalizer.
# Exits non-zero at the first claim that does not hold, saying which.
#
#   e2e/kind-user-path.sh    on the kind cluster of e2e/kind.sh (created if missing; `make test-kind` runs it)
#
# Environment: VERSION (default the chart's appVersion), SYNCGC_OFFLINE (base images built here),
#              SYNCGC_CACHE, SYNCGC_KIND_CLUSTER, DOCKER_HOST (e2e/docker.sh up)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:${SYNCGC_CACHE:-$HOME/.cache/syncgc}/tools" # helm and kubectl built by e2e/cluster.sh

VERSION=${VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' helm/syncgc/Chart.yaml)}
REGISTRY=registry.example.com/platform # never pulled from: the image is loaded into the node
IMAGE=$REGISTRY/syncgc-operator
NS=syncgc-user-path
FINALIZER=syncgc.dev/GarbageCollectionInProgress
MIDS=10
LEAVES=99 # per mid: 10 + 990 = 1,000 dependents under each root
TOTAL=$((MIDS + MIDS * LEAVES))
UNINSTALL_TIMEOUT=180
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

started=$SECONDS
step() { printf '\n[user-path] %s (%ss)\n' "$*" "$((SECONDS - started))" >&2; }
fail() { printf '[user-path] FAIL: %s\n' "$*" >&2; exit 1; }

step "make dist, make dist-image $IMAGE:$VERSION"
make -s dist VERSION="$VERSION" >/dev/null
for f in "syncgc-$VERSION.tgz" "kubectl-syncgc-v$VERSION.tar.gz" syncgc.yaml SHA256SUMS; do
  [[ -f dist/$f ]] || fail "make dist did not write dist/$f"
done
# the base images by digest, as a release names them (make dist-image refuses a tag)
build_args=""
pins=""
if [[ -n ${SYNCGC_OFFLINE:-} ]]; then # no registry for the Dockerfile's base images: the ones built here
  pins=local
  build_args="--network host"
fi
pinned=$(e2e/images.sh pins ${pins:+"$pins"}) || fail "e2e/images.sh pins${pins:+ $pins}: no digest for the base images"
read -ra bases <<<"$pinned"
make -s dist-image VERSION="$VERSION" IMAGE="$IMAGE" DOCKER_BUILD_ARGS="$build_args" "${bases[@]}" >"$WORK/image.log" 2>&1 \
  || { tail -30 "$WORK/image.log" >&2; fail "make dist-image"; }
eval "$(e2e/kind.sh cluster)"
e2e/kind.sh namespace # Pod Security `restricted` enforced: the operator, helm test and the uninstall Job pass it
e2e/kind.sh load "$IMAGE:$VERSION"

if helm status syncgc -n syncgc-system >/dev/null 2>&1; then
  step "an earlier release syncgc: helm uninstall first"
  helm uninstall syncgc -n syncgc-system --wait --timeout 5m
fi
kubectl delete namespace "$NS" --ignore-not-found --wait --timeout 2m >/dev/null

step "helm install syncgc dist/syncgc-$VERSION.tgz --set image.repository=$IMAGE, helm test"
helm install syncgc "dist/syncgc-$VERSION.tgz" -n syncgc-system --create-namespace \
  --set image.repository="$IMAGE" --wait --timeout 5m >/dev/null
image=$(kubectl -n syncgc-system get deployment syncgc -o jsonpath='{.spec.template.spec.containers[0].image}')
[[ $image == "$IMAGE:$VERSION" ]] || fail "the operator runs $image, not $IMAGE:$VERSION (the tag is the chart's appVersion)"
helm test syncgc -n syncgc-system --timeout 4m >"$WORK/helm-test" 2>&1 || { cat "$WORK/helm-test" >&2; fail "helm test"; }

step "the kubectl plugin from dist/kubectl-syncgc-v$VERSION.tar.gz, as krew installs it"
sha=$(sed -n 's/^ *sha256: *"\{0,1\}\([0-9a-f]*\)"\{0,1\}$/\1/p' dist/syncgc.yaml)
[[ $(sha256sum "dist/kubectl-syncgc-v$VERSION.tar.gz" | cut -d' ' -f1) == "$sha" ]] \
  || fail "the archive's sha256 is not the manifest's ($sha)"
store=$WORK/krew/store/syncgc/v$VERSION # krew's layout: the archive unpacked in its store, bin/ links to it
mkdir -p "$store" "$WORK/krew/bin"
tar -xzf "dist/kubectl-syncgc-v$VERSION.tar.gz" -C "$store"
ln -s "$store/$(sed -n 's/^ *bin: *//p' dist/syncgc.yaml)" "$WORK/krew/bin/kubectl-syncgc"
export PATH="$WORK/krew/bin:$PATH"
[[ $(kubectl plugin list 2>/dev/null) == *"$WORK/krew/bin/kubectl-syncgc"* ]] || fail "kubectl does not find the plugin"

# tree ROOT: an opted-in Widget owning $MIDS Widgets, each owning $LEAVES ConfigMaps
uid() { kubectl get "$1" "$2" -n "$NS" -o jsonpath='{.metadata.uid}'; }
owned() { printf '  ownerReferences: [{apiVersion: %s, kind: %s, name: %s, uid: %s}]\n' "$@"; }
tree() {
  local root=$1 m l doc=$WORK/$1.yaml
  printf 'apiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: %s\n  labels: {tree: %s}\n  annotations: {syncgc.dev/propagation: Synchronous}\n' \
    "$root" "$root" | kubectl create -n "$NS" -f - >/dev/null
  local root_uid
  root_uid=$(uid widget "$root")
  : >"$doc"
  for ((m = 0; m < MIDS; m++)); do
    { printf -- '---\napiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: %s-mid-%d\n  labels: {tree: %s}\n' "$root" "$m" "$root"
      owned example.syncgc.dev/v1 Widget "$root" "$root_uid"; } >>"$doc"
  done
  kubectl create -n "$NS" -f "$doc" >/dev/null
  local pids=() mid_uid pid
  for ((m = 0; m < MIDS; m++)); do # each mid's leaves by a kubectl of its own: one sends one request at a time
    mid_uid=$(uid widget "$root-mid-$m")
    for ((l = 0; l < LEAVES; l++)); do
      printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-leaf-%d-%d\n  labels: {tree: %s}\n' "$root" "$m" "$l" "$root"
      owned example.syncgc.dev/v1 Widget "$root-mid-$m" "$mid_uid"
    done >"$doc.$m"
    kubectl create -n "$NS" -f "$doc.$m" >/dev/null &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || fail "creating the ConfigMaps of tree $root"; done
  until [[ $(kubectl get widget "$root" -n "$NS" -o jsonpath='{.metadata.finalizers}') == *"$FINALIZER"* ]]; do sleep 0.2; done
}
left_in() { kubectl get widgets,configmaps -n "$NS" -l "tree=$1" -o name | wc -l; }

step "two trees of $TOTAL dependents"
kubectl apply -f examples/widget-crd.yaml >/dev/null
kubectl wait --for condition=Established crd/widgets.example.syncgc.dev >/dev/null
kubectl create namespace "$NS" >/dev/null
tree plain
tree json
[[ $(left_in plain) == $((TOTAL + 1)) ]] || fail "tree plain has $(left_in plain) objects, not $((TOTAL + 1))"

step "kubectl syncgc delete widget/plain (into a pipe: plain lines)"
rc=0
kubectl syncgc delete widget/plain -n "$NS" >"$WORK/plain.out" 2>"$WORK/plain.err" || rc=$?
cat "$WORK/plain.out" >&2
[[ $rc == 0 ]] || { cat "$WORK/plain.err" >&2; fail "kubectl syncgc delete exited $rc"; }
grep -q $'\r' "$WORK/plain.out" && fail "a terminal's redrawn line in a pipe"
# a line printed again with the same count is one whose blockers changed (ProgressView): one count each
mapfile -t lefts < <(sed -n "s|^Widget/$NS/plain: \([0-9]*\) of $TOTAL dependents left.*|\1|p" "$WORK/plain.out" | uniq)
((${#lefts[@]} >= 2)) || fail "fewer than two progress lines of $TOTAL dependents with different counts"
for ((i = 1; i < ${#lefts[@]}; i++)); do
  ((lefts[i] < lefts[i - 1])) || fail "dependents left did not decrease: ${lefts[*]}"
done
[[ $(tail -1 "$WORK/plain.out") == "Widget/$NS/plain deleted, with its $TOTAL dependents" ]] || fail "no final line"
[[ $(left_in plain) == 0 ]] || fail "$(left_in plain) objects of tree plain are left"

step "kubectl syncgc delete widget/json -o json"
rc=0
kubectl syncgc delete widget/json -n "$NS" -o json >"$WORK/json.out" 2>"$WORK/json.err" || rc=$?
jq -c '[.event, .left, .total]' "$WORK/json.out" | paste -sd' ' >&2
[[ $rc == 0 ]] || { cat "$WORK/json.err" >&2; fail "kubectl syncgc delete -o json exited $rc"; }
jq -se --argjson total "$TOTAL" '
  (.[0].event == "sent") and (.[-1] | .event == "deleted" and .left == 0 and .total == $total)
  and ([.[] | select(.event == "progress")] | length >= 2 and all(.total == $total)
       and ([.[].left] as $a | [range($a | length) | select(. == 0 or $a[.] != $a[. - 1]) | $a[.]] as $l
            | ($l | length >= 2) and ([range(1; $l | length) | $l[.] < $l[. - 1]] | all)))' "$WORK/json.out" >/dev/null \
  || fail "-o json: not sent, progress of $TOTAL with dependents left decreasing (two counts at least), then deleted"
[[ $(left_in json) == 0 ]] || fail "$(left_in json) objects of tree json are left"

step "an owner held mid-deletion by a foreign finalizer"
printf 'apiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: stuck\n  annotations: {syncgc.dev/propagation: Synchronous}\n' \
  | kubectl create -n "$NS" -f - >/dev/null
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n'
  printf '  ownerReferences: [{apiVersion: example.syncgc.dev/v1, kind: Widget, name: stuck, uid: %s, blockOwnerDeletion: true}]\n' \
    "$(uid widget stuck)"; } | kubectl create -n "$NS" -f - >/dev/null
until [[ $(kubectl get widget stuck -n "$NS" -o jsonpath='{.metadata.finalizers}') == *"$FINALIZER"* ]]; do sleep 0.2; done
kubectl delete widget stuck -n "$NS" --wait=false >/dev/null
until [[ -n $(kubectl get configmap held -n "$NS" -o jsonpath='{.metadata.deletionTimestamp}') ]]; do sleep 0.2; done
[[ $(kubectl get widget stuck -n "$NS" -o jsonpath='{.metadata.finalizers}') == *"$FINALIZER"* ]] \
  || fail "the owner is not held by syncgc before the uninstall"

step "helm uninstall syncgc (the chart's default values: its release hook)"
began=$SECONDS
helm uninstall syncgc -n syncgc-system --wait --timeout "${UNINSTALL_TIMEOUT}s" || fail "helm uninstall failed"
echo "helm uninstall took $((SECONDS - began))s" >&2
((SECONDS - began <= UNINSTALL_TIMEOUT)) || fail "helm uninstall took longer than ${UNINSTALL_TIMEOUT}s"
[[ -z $(kubectl get pods -n syncgc-system -l app.kubernetes.io/name=syncgc -o name) ]] || fail "operator Pods are left"
kubectl api-resources --verbs=list -o name | grep -v '^events' | while read -r kind; do
  kubectl get "$kind" -A -o json 2>/dev/null | jq -r --arg f "$FINALIZER" --arg k "$kind" \
    '.items[] | select(.metadata.finalizers // [] | index($f)) | "\($k) \(.metadata.namespace // "")/\(.metadata.name)"'
done >"$WORK/finalized"
[[ ! -s $WORK/finalized ]] || fail "syncgc's finalizer is left on: $(cat "$WORK/finalized")"
kubectl get widget stuck -n "$NS" >/dev/null 2>&1 || fail "the owner went while its dependent is held (blockOwnerDeletion)"

step "the foreign finalizer removed: the owner goes (Kubernetes' foreground deletion)"
kubectl patch configmap held -n "$NS" --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
kubectl wait --for=delete widget/stuck -n "$NS" --timeout 60s >/dev/null || fail "the owner stays after its dependent went"
kubectl delete namespace "$NS" --wait=false >/dev/null
# the cluster as found: a second Widget kind would make `widget` ambiguous for the suite that follows
kubectl delete -f examples/widget-crd.yaml --wait --timeout 2m >/dev/null
step "passed"
