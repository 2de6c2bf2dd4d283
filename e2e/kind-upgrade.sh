#!/usr/bin/env bash
# `helm upgrade` from the last release to this tree in the middle of a cascade, on kind
# (UPGRADING.md), checked step by step:
#   the last release ($SYNCGC_PREVIOUS_RELEASE, e2e/common.sh): its chart packaged and its operator image
#   built from that commit (the image cached in Docker by its revision label) -> helm install of it, the
#   operator throttled (kubeApi.qps=10) so that the cascade lasts -> a GarbageCollectionPolicy, four
#   owners (two opted in by annotation, two by the policy) of 4 x 50 ConfigMaps under 4 Widgets each,
#   one leaf under each owner held by a foreign finalizer, a ConfigMap per owner with a second owner that
#   is not deleted -> the owners deleted -> mid-cascade: helm upgrade to this tree's chart package and
#   image refused without --take-ownership (the CRD came from crds/), then done with it -> the new
#   operator finishes -> the holds removed -> every owner and dependent gone, nothing else deleted, the
#   shared ConfigMaps kept without the deleted owner's reference, the CRD owned by the release, the
#   policy kept, the new Pod's log completing what the old Pod's log started.
# Exits non-zero at the first claim that does not hold, saying which. Starts by uninstalling the release
# and deleting the GarbageCollectionPolicy CRD (every policy with it: a test cluster only); leaves no
# release installed and the CRD kept, as `helm uninstall` does.
#
#   e2e/kind-upgrade.sh    on the kind cluster of e2e/kind.sh (created if missing; `make test-kind` runs it)
#
# Environment: SYNCGC_PREVIOUS_RELEASE (a commit or tag of this repository), SYNCGC_OFFLINE (base
#              images built here), SYNCGC_CACHE, SYNCGC_KIND_CLUSTER, DOCKER_HOST (e2e/docker.sh up),
#              SYNCGC_UPGRADE_SKIP=1 (by hand, not where CI is set: skip, rather than fail, when the last
#              release is not in a shallow clone and origin does not serve it)
set -euo pipefail
cd "$(dirname "$0")/.."
LOG_TAG=upgrade
# shellcheck source=e2e/common.sh
source e2e/common.sh
export PATH="$PATH:${SYNCGC_CACHE:-$HOME/.cache/syncgc}/tools" # helm and kubectl built by e2e/cluster.sh

RELEASE=syncgc
SYSTEM=syncgc-system
NS=syncgc-upgrade
CRD=garbagecollectionpolicies.syncgc.dev
POLICY=upgrade-widgets
FINALIZER=syncgc.dev/GarbageCollectionInProgress
HOLD=example.com/hold
PREVIOUS_IMAGE=syncgc/operator:previous
CURRENT_IMAGE=syncgc/operator:dev # e2e/kind.sh's: built once for this test and the kind suite after it
OWNERS=4  # owner-0 and owner-1 opted in by annotation, owner-2 and owner-3 by the policy
MIDS=4
LEAVES=50 # per mid: 4 + 200 + 1 shared = 205 dependents under each owner, 820 in all
GONE_BEFORE_UPGRADE=60 # dependents the old operator deleted before the upgrade: well into the cascade
FINISH_TIMEOUT=180
WORK=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

started=$SECONDS
step() { printf '\n[upgrade] %s (%ss)\n' "$*" "$((SECONDS - started))" >&2; }
fail() {
  printf '[upgrade] FAIL: %s\n' "$*" >&2
  kubectl -n "$SYSTEM" get pods -o wide >&2 || true
  kubectl -n "$SYSTEM" logs deploy/syncgc --tail 30 >&2 || true
  exit 1
}
die() { fail "$*"; }

step "the last release $SYNCGC_PREVIOUS_RELEASE: its chart package and operator image"
if ! git rev-parse --verify --quiet "$SYNCGC_PREVIOUS_RELEASE^{commit}" >/dev/null \
    && [[ $(git rev-parse --is-shallow-repository) == true ]]; then
  # a shallow clone (as some CI checkouts are): the release's commit, fetched alone from where it came
  log "a shallow clone: fetching $SYNCGC_PREVIOUS_RELEASE from origin"
  if ! git fetch --quiet --depth=1 origin "$SYNCGC_PREVIOUS_RELEASE"; then
    # the upgrade cannot be checked: a failure, not a pass (CI must not go green without it); by hand
    # only, SYNCGC_UPGRADE_SKIP=1 skips it, loudly
    why="$SYNCGC_PREVIOUS_RELEASE (SYNCGC_PREVIOUS_RELEASE, e2e/common.sh) is not in this shallow clone and origin does not serve it"
    if [[ ${SYNCGC_UPGRADE_SKIP:-} == 1 && ( -z ${CI:-} || ${CI:-} == false ) ]]; then
      log "SKIPPED, as SYNCGC_UPGRADE_SKIP=1 asks: $why; the upgrade from the last release was NOT checked"
      exit 0
    fi
    printf '[upgrade] FAIL: %s: the upgrade from the last release cannot be checked. Fetch the history' "$why" >&2
    printf ' (git fetch --unshallow; in CI a checkout of full depth), then make test-kind-upgrade again; by hand' >&2
    printf ' only, SYNCGC_UPGRADE_SKIP=1 skips this test (refused where CI is set)\n' >&2
    exit 1
  fi
fi
commit=$(git rev-parse --verify --quiet "$SYNCGC_PREVIOUS_RELEASE^{commit}") \
  || fail "$SYNCGC_PREVIOUS_RELEASE is not a commit of this clone"
mkdir -p "$WORK/previous" "$WORK/charts/previous" "$WORK/charts/current"
git archive "$commit" | tar -x -C "$WORK/previous"
helm package "$WORK/previous/helm/syncgc" -d "$WORK/charts/previous" >/dev/null
helm package helm/syncgc -d "$WORK/charts/current" >/dev/null
previous_chart=$(ls "$WORK"/charts/previous/syncgc-*.tgz)
current_chart=$(ls "$WORK"/charts/current/syncgc-*.tgz)
# a chart of before crds.enabled (its CRD in crds/, which Helm does not record in the release): the
# upgrade needs --take-ownership once (UPGRADING.md, "The CRD"); from a later release a plain upgrade
take=()
if [[ -d $WORK/previous/helm/syncgc/crds ]]; then
  take=(--take-ownership)
else
  log "the last release's chart has its CRD in templates/: a plain helm upgrade, no --take-ownership"
fi
require_docker
if [[ $(docker image inspect --format '{{index .Config.Labels "org.opencontainers.image.revision"}}' \
  "$PREVIOUS_IMAGE" 2>/dev/null) == "$commit" ]]; then
  log "$PREVIOUS_IMAGE of $commit: in Docker already"
else
  build_args=()
  if [[ -n ${SYNCGC_OFFLINE:-} ]]; then # no registry for the Dockerfile's base images: the ones built here
    e2e/images.sh bases
    build_args=(--network host --build-arg BUILD_IMAGE=syncgc/maven:17-bookworm --build-arg RUNTIME_IMAGE=syncgc/debian:bookworm)
  fi
  began=$SECONDS
  log "building $PREVIOUS_IMAGE from the Dockerfile of $commit"
  docker build -q "${build_args[@]}" --build-arg REVISION="$commit" -t "$PREVIOUS_IMAGE" "$WORK/previous" \
    >"$WORK/previous-image.log" 2>&1 || { tail -30 "$WORK/previous-image.log" >&2; fail "the last release's image did not build"; }
  log "built $PREVIOUS_IMAGE in $((SECONDS - began))s"
fi
eval "$(e2e/kind.sh image)" # this tree's image, as the kind suite after this test uses it
e2e/kind.sh namespace # Pod Security `restricted` enforced, for the last release's Pods and this tree's
e2e/kind.sh load "$PREVIOUS_IMAGE"

step "a cluster as the last release leaves it: no release, its chart's CRD"
if helm status "$RELEASE" -n "$SYSTEM" >/dev/null 2>&1; then
  helm uninstall "$RELEASE" -n "$SYSTEM" --wait --timeout 5m >/dev/null
fi
for ((i = 0; i < OWNERS; i++)); do # a failed run's holds
  kubectl patch configmap "owner-$i-leaf-0-0" -n "$NS" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
done
kubectl delete namespace "$NS" --ignore-not-found --wait --timeout 2m >/dev/null
# a CRD left by a later chart (crds.keep) carries Helm's marks, which the upgrade must not find
kubectl delete crd "$CRD" --ignore-not-found --wait --timeout 2m >/dev/null
values=(--set image.repository=syncgc/operator --set image.pullPolicy=Never)
helm install "$RELEASE" "$previous_chart" -n "$SYSTEM" --create-namespace "${values[@]}" \
  --set image.tag=previous --set kubeApi.qps=10 --set kubeApi.burst=10 --wait --timeout 5m >/dev/null \
  || fail "helm install of the last release's chart"
old_pod=$(kubectl -n "$SYSTEM" get pods -l app.kubernetes.io/name=syncgc -o jsonpath='{.items[0].metadata.name}')
[[ -n $old_pod ]] || fail "no operator Pod after the install"
kubectl get crd "$CRD" >/dev/null || fail "the last release's chart did not install the CRD"
if ((${#take[@]})); then
  [[ -z $(kubectl get crd "$CRD" -o jsonpath='{.metadata.annotations.meta\.helm\.sh/release-name}') ]] \
    || fail "the CRD from crds/ carries Helm's release annotation: not the state a release of before leaves"
fi
left() { kubectl get widgets,configmaps -n "$NS" -l tree -o name | wc -l; }
# the old Pod's log until the upgrade stops it, then what was left to delete at that moment
{ kubectl -n "$SYSTEM" logs -f "$old_pod" >"$WORK/old.log" 2>&1; left >"$WORK/left-at-stop"; } &
pids+=($!)
old_log=$!

step "a policy, $OWNERS owners of $((MIDS + MIDS * LEAVES + 1)) dependents each, a bystander"
kubectl apply -f examples/widget-crd.yaml >/dev/null
kubectl wait --for condition=Established crd/widgets.example.syncgc.dev >/dev/null
kubectl create namespace "$NS" >/dev/null
kubectl apply -f - >/dev/null <<EOF
apiVersion: syncgc.dev/v1alpha1
kind: GarbageCollectionPolicy
metadata:
  name: $POLICY
spec:
  kinds: [{group: example.syncgc.dev, kind: Widget}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: $NS}}
  selector: {matchLabels: {opt-in: policy}}
  propagation: Synchronous
  timeout: 10m
EOF
policy_uid=$(kubectl get garbagecollectionpolicy "$POLICY" -o jsonpath='{.metadata.uid}')
uid() { kubectl get "$1" "$2" -n "$NS" -o jsonpath='{.metadata.uid}'; }
has_finalizer() { [[ $(kubectl get "$1" "$2" -n "$NS" -o jsonpath='{.metadata.finalizers}') == *"$FINALIZER"* ]]; }
await() { # SECONDS DESCRIPTION COMMAND...: polls the command until it succeeds
  local deadline=$((SECONDS + $1)) what="$2 (within $1 s)"
  shift 2
  until "$@"; do ((SECONDS < deadline)) || fail "$what"; sleep 0.5; done
}
ref() { printf '{apiVersion: %s, kind: %s, name: %s, uid: %s%s}' "$@"; }
printf 'apiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: keeper\n  annotations: {syncgc.dev/propagation: Synchronous}\n' \
  | kubectl create -n "$NS" -f - >/dev/null
keeper_uid=$(uid widget keeper)
{ printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept-by-keeper\n'
  printf '  ownerReferences: [%s]\n' "$(ref example.syncgc.dev/v1 Widget keeper "$keeper_uid" '')"; } \
  | kubectl create -n "$NS" -f - >/dev/null
owner() { # NAME: an opted-in Widget owning $MIDS Widgets of $LEAVES ConfigMaps, leaf 0 of mid 0 held
  local o=$1 i=${1#owner-} m l doc=$WORK/$1 opt
  if ((i < 2)); then opt="  labels: {tree: $o}"$'\n''  annotations: {syncgc.dev/propagation: Synchronous, syncgc.dev/timeout: 10m}'
  else opt="  labels: {tree: $o, opt-in: policy}"; fi
  printf 'apiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: %s\n%s\n' "$o" "$opt" \
    | kubectl create -n "$NS" -f - >/dev/null
  local owner_uid mid_uid
  owner_uid=$(uid widget "$o")
  { printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-shared\n  labels: {shared: "yes"}\n' "$o"
    printf '  ownerReferences: [%s, %s]\n' "$(ref example.syncgc.dev/v1 Widget "$o" "$owner_uid" '')" \
      "$(ref example.syncgc.dev/v1 Widget keeper "$keeper_uid" '')"
    for ((m = 0; m < MIDS; m++)); do
      printf -- '---\napiVersion: example.syncgc.dev/v1\nkind: Widget\nmetadata:\n  name: %s-mid-%d\n  labels: {tree: %s}\n' "$o" "$m" "$o"
      printf '  ownerReferences: [%s]\n' "$(ref example.syncgc.dev/v1 Widget "$o" "$owner_uid" '')"
    done; } >"$doc"
  declare -A mid_uids
  local name id
  while read -r name id; do mid_uids[$name]=$id; done < <(kubectl create -n "$NS" -f "$doc" \
    -o jsonpath='{.metadata.name} {.metadata.uid}{"\n"}')
  for ((m = 0; m < MIDS; m++)); do
    mid_uid=${mid_uids[$o-mid-$m]}
    [[ -n $mid_uid ]] || fail "no uid for $o-mid-$m"
    for ((l = 0; l < LEAVES; l++)); do
      printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-leaf-%d-%d\n  labels: {tree: %s}\n' "$o" "$m" "$l" "$o"
      ((m == 0 && l == 0)) && printf '  finalizers: [%s]\n' "$HOLD"
      printf '  ownerReferences: [%s]\n' "$(ref example.syncgc.dev/v1 Widget "$o-mid-$m" "$mid_uid" ', blockOwnerDeletion: true')"
    done >"$doc.$m"
  done
  # one kubectl per mid (each sends one request at a time)
  local mpids=() pid
  for ((m = 0; m < MIDS; m++)); do kubectl create -n "$NS" -f "$doc.$m" >/dev/null & mpids+=($!); done
  for pid in "${mpids[@]}"; do wait "$pid" || fail "creating the ConfigMaps of $o"; done
}
opids=()
for ((i = 0; i < OWNERS; i++)); do owner "owner-$i" & opids+=($!); done
for pid in "${opids[@]}"; do wait "$pid" || fail "creating the owners"; done
for ((i = 0; i < OWNERS; i++)); do
  await 60 "owner-$i opted in by the last release's operator" has_finalizer widget "owner-$i"
done
await 60 "keeper opted in" has_finalizer widget keeper
total=$(left)
((total == OWNERS * (1 + MIDS + MIDS * LEAVES))) || fail "$total objects in the trees, not $((OWNERS * (1 + MIDS + MIDS * LEAVES)))"
declare -A kept # name -> uid of what must survive
shared=(kept-by-keeper)
for ((i = 0; i < OWNERS; i++)); do shared+=("owner-$i-shared"); done
for name in "${shared[@]}"; do kept[configmap/$name]=$(uid configmap "$name"); done
kept[widget/keeper]=$keeper_uid
declare -A owner_uids
for ((i = 0; i < OWNERS; i++)); do owner_uids[owner-$i]=$(uid widget "owner-$i"); done

step "the $OWNERS owners deleted; the last release's operator cascades"
kubectl delete widget -n "$NS" "${!owner_uids[@]}" --wait=false >/dev/null
gone_enough() { (($(left) <= total - GONE_BEFORE_UPGRADE)); }
await 120 "$GONE_BEFORE_UPGRADE dependents deleted by the last release's operator" gone_enough
at_upgrade=$(left)
held=$((OWNERS * 3)) # per owner: the held leaf, its mid, the owner
((at_upgrade > held + 100)) || fail "only $at_upgrade objects left at the upgrade: the cascade was not in flight"
for o in "${!owner_uids[@]}"; do
  [[ -n $(kubectl get widget "$o" -n "$NS" -o jsonpath='{.metadata.deletionTimestamp}') ]] \
    || fail "$o is not being deleted at the upgrade"
done
log "$((total - at_upgrade)) of $total deleted by the last release's operator, $at_upgrade left"

if ((${#take[@]})); then
  step "helm upgrade without --take-ownership: refused, nothing changed (UPGRADING.md, \"The CRD\")"
  if helm upgrade "$RELEASE" "$current_chart" -n "$SYSTEM" "${values[@]}" --set image.tag=dev \
    --wait --timeout 5m >"$WORK/refused" 2>&1; then
    fail "helm upgrade took the CRD from crds/ without --take-ownership"
  fi
  grep -q 'invalid ownership metadata' "$WORK/refused" || { cat "$WORK/refused" >&2; fail "helm upgrade failed for another reason"; }
  sed 's/^/  /' "$WORK/refused" >&2
  [[ $(kubectl -n "$SYSTEM" get pods -l app.kubernetes.io/name=syncgc -o jsonpath='{.items[*].metadata.name}') == "$old_pod" ]] \
    || fail "the refused upgrade changed the operator's Pods"
fi

step "helm upgrade ${take[*]} to this tree's chart and image, mid-cascade"
began=$SECONDS
helm upgrade "$RELEASE" "$current_chart" -n "$SYSTEM" "${take[@]}" "${values[@]}" --set image.tag=dev \
  --wait --timeout 5m >/dev/null || fail "helm upgrade ${take[*]}"
log "helm upgrade took $((SECONDS - began))s"
new_pod=$(kubectl -n "$SYSTEM" get pods -l app.kubernetes.io/name=syncgc -o jsonpath='{.items[*].metadata.name}')
[[ -n $new_pod && $new_pod != *" "* && $new_pod != "$old_pod" ]] || fail "operator Pods after the upgrade: '$new_pod'"
image=$(kubectl -n "$SYSTEM" get pod "$new_pod" -o jsonpath='{.spec.containers[0].image}')
[[ $image == "$CURRENT_IMAGE" ]] || fail "the new Pod runs $image, not $CURRENT_IMAGE"
exited() { ! kill -0 "$old_log" 2>/dev/null; }
await 30 "the old Pod's log complete (kubectl logs -f returns when it stops)" exited
log "$(cat "$WORK/left-at-stop") objects left when $old_pod stopped, $(left) when $new_pod is ready"

step "the new operator finishes all but the held leaves, their mids and the owners"
only_held() { (($(left) == held)); }
await "$FINISH_TIMEOUT" "only the $held held objects left" only_held
for o in "${!owner_uids[@]}"; do
  [[ $(kubectl get widget "$o" -n "$NS" -o jsonpath='{.metadata.uid}') == "${owner_uids[$o]}" ]] \
    || fail "$o went before its held dependent"
done

step "the foreign finalizers removed: every deletion finishes"
for ((i = 0; i < OWNERS; i++)); do
  kubectl patch configmap "owner-$i-leaf-0-0" -n "$NS" --type json \
    -p '[{"op":"test","path":"/metadata/finalizers/0","value":"'"$HOLD"'"},{"op":"remove","path":"/metadata/finalizers/0"}]' >/dev/null
done
none_left() { (($(left) == 0)); }
await "$FINISH_TIMEOUT" "every owner and dependent gone" none_left
log "every deletion finished $((SECONDS - began))s after the upgrade began"

step "nothing kept by something else was deleted; the shared ConfigMaps lost the deleted owner only"
for obj in "${!kept[@]}"; do
  [[ $(kubectl get "$obj" -n "$NS" -o jsonpath='{.metadata.uid}') == "${kept[$obj]}" ]] || fail "$obj was deleted"
  [[ -z $(kubectl get "$obj" -n "$NS" -o jsonpath='{.metadata.deletionTimestamp}') ]] || fail "$obj is being deleted"
done
for name in "${shared[@]}"; do
  refs=$(kubectl get configmap "$name" -n "$NS" -o jsonpath='{.metadata.ownerReferences[*].uid}')
  [[ $refs == "$keeper_uid" ]] || fail "configmap/$name has the owner references $refs, not only keeper's"
done
has_finalizer widget keeper || fail "the bystander keeper lost syncgc's finalizer"

step "the CRD owned by the release, the policy kept"
crd_marks=$(kubectl get crd "$CRD" -o go-template='{{index .metadata.labels "app.kubernetes.io/managed-by"}} {{index .metadata.annotations "meta.helm.sh/release-name"}} {{index .metadata.annotations "meta.helm.sh/release-namespace"}} {{index .metadata.annotations "helm.sh/resource-policy"}}')
[[ $crd_marks == "Helm $RELEASE $SYSTEM keep" ]] || fail "the CRD's Helm marks are '$crd_marks'"
helm get manifest "$RELEASE" -n "$SYSTEM" | grep -qx "  name: $CRD" || fail "the release's manifest lacks the CRD"
[[ $(kubectl get garbagecollectionpolicy "$POLICY" -o jsonpath='{.metadata.uid}') == "$policy_uid" ]] \
  || fail "the policy $POLICY is gone or was recreated"
ready=$(kubectl get garbagecollectionpolicy "$POLICY" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')
[[ $ready == True ]] || fail "the policy $POLICY is not Ready ($ready) under the new operator"

step "the old Pod started the deletions, the new Pod completed them"
kubectl -n "$SYSTEM" logs "$new_pod" >"$WORK/new.log"
for o in "${!owner_uids[@]}"; do
  u=${owner_uids[$o]}
  grep -q "synchronous deletion started .*uid=$u " "$WORK/old.log" || fail "$old_pod did not start the deletion of $o"
  grep -q "synchronous deletion completed .*uid=$u " "$WORK/old.log" && fail "$old_pod completed the deletion of $o"
  grep -q "synchronous deletion completed .*uid=$u " "$WORK/new.log" || fail "$new_pod did not complete the deletion of $o"
done
grep -q 'synchronous deletion timed out' "$WORK/new.log" && fail "a deletion timed out: $(grep 'timed out' "$WORK/new.log")"
old_deletes=$(grep -c 'deleted object=' "$WORK/old.log" || true)
new_deletes=$(grep -c 'deleted object=' "$WORK/new.log" || true)
log "$old_pod: $old_deletes DELETEs; $new_pod: $new_deletes DELETEs"
# beyond the held leaves' mids (one per owner): the new operator took over a cascade in full flight
((new_deletes >= 100)) || fail "$new_pod sent only $new_deletes DELETEs: the old one had nearly finished before the upgrade"

step "cleaning up: helm uninstall, the test's namespace and Widget CRD"
helm uninstall "$RELEASE" -n "$SYSTEM" --wait --timeout 5m >/dev/null || fail "helm uninstall"
has_finalizer widget keeper && fail "helm uninstall after the upgrade left syncgc's finalizer on keeper"
kubectl delete namespace "$NS" --wait=false >/dev/null
# the cluster as found: a second Widget kind would make `widget` ambiguous for the suite that follows
kubectl delete -f examples/widget-crd.yaml --wait --timeout 2m >/dev/null
step "passed"
