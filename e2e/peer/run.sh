#!/usr/bin/env bash
# The peer suite: Kubernetes' own garbage-collector e2e tests (test/e2e/apimachinery, "Garbage
# collector") run against the local control plane with syncgc running beside kube-controller-manager's
# garbage collector and a GarbageCollectionPolicy that opts every kind of the groups "", apps and
# batch in (Synchronous). Kubernetes' semantics must hold with syncgc in the way.
#
#   e2e/peer/run.sh            build, start the control plane and the operator, run, report, stop (make e2e-peer)
#   e2e/peer/run.sh build      only build the test binary (cached in $SYNCGC_CACHE/bin, keyed by version)
#   e2e/peer/run.sh up         start the control plane, the operator and the policy, and leave them running
#   e2e/peer/run.sh down       stop the operator and the control plane of this suite, remove its data
#   e2e/peer/run.sh check      whether the last run's JUnit report shows SPECS specs passed (the run does it)
#
# Environment: SYNCGC_PEER_FOCUS (ginkgo focus, default "Garbage collector"), SYNCGC_PEER_SPECS (how many
# specs must pass, default SPECS below: set it with another focus), SYNCGC_PEER_TIMEOUT
# (whole suite, default 45m), SYNCGC_PEER_OUT (results, default $SYNCGC_CACHE/peer-results),
# SYNCGC_PEER_KEEP=1 (leave the control plane running), and cluster.sh's SYNCGC_* ports and data dir
# (make e2e-peer gives the suite its own). The binary and the results never enter the repository.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LOG_TAG=peer
# shellcheck source=../common.sh
source "$ROOT/e2e/common.sh"

BIN_PEER=$CACHE/bin/e2e-apimachinery-$K8S_VERSION
TEST_BIN=$BIN_PEER/apimachinery.test
KUBECTL=$CACHE/bin/kubernetes-$K8S_VERSION/kubectl
JAR=$ROOT/operator/target/syncgc-operator.jar
CLUSTER=$ROOT/e2e/cluster.sh
OUT=${SYNCGC_PEER_OUT:-$CACHE/peer-results}
FOCUS=${SYNCGC_PEER_FOCUS:-Garbage collector}
# The "Garbage collector" specs of test/e2e/apimachinery at K8S_VERSION: each must run and pass, so
# that a focus, a skip or a version that drops some fails instead of passing with fewer. A new
# Kubernetes version with more or fewer specs: count them in the report and change this number.
SPECS=${SYNCGC_PEER_SPECS:-11}
SUITE_TIMEOUT=${SYNCGC_PEER_TIMEOUT:-45m}
# cluster.sh's controllers, and what the suite's specs need besides: ReplicationControllers and
# CronJobs. The built-in garbage collector stays on: the suite checks Kubernetes' semantics.
export SYNCGC_KCM_CONTROLLERS=${SYNCGC_KCM_CONTROLLERS:-garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,deployment-controller,replicaset-controller,statefulset-controller,job-controller,replicationcontroller-controller,cronjob-controller}
OPERATOR_PID_FILE=$OUT/operator.pid

# ---------------------------------------------------------------------------------------------
# build: e2e/peer is its own Go module with the k8s.io/kubernetes version and the replace
# directives of e2e/toolchain/kubernetes (the control plane's); checked here so they never drift.
# ---------------------------------------------------------------------------------------------

check_module() {
  local want have
  have=$(sed -n 's/^require k8s.io\/kubernetes \(v[^ ]*\)$/\1/p' "$HERE/go.mod")
  [[ $have == "$K8S_VERSION" ]] \
    || die "e2e/peer/go.mod requires k8s.io/kubernetes ${have:-?}, the control plane is $K8S_VERSION (e2e/common.sh): update the require and run go mod tidy in e2e/peer"
  want=$(sed -n '/^replace (/,/^)/p' "$ROOT/e2e/toolchain/kubernetes/go.mod")
  have=$(sed -n '/^replace (/,/^)/p' "$HERE/go.mod")
  [[ $want == "$have" ]] \
    || die "the replace directives of e2e/peer/go.mod differ from e2e/toolchain/kubernetes/go.mod: copy them and run go mod tidy in e2e/peer"
}

cmd_build() {
  [[ -x $TEST_BIN ]] && return
  command -v go >/dev/null || die "Go is required to build the peer suite (go.dev/dl)"
  check_module
  log "building the e2e tests of k8s.io/kubernetes $K8S_VERSION (test/e2e/apimachinery); first time only, many minutes"
  local start=$SECONDS
  rm -rf "$BIN_PEER.tmp" && mkdir -p "$BIN_PEER.tmp"
  (cd "$HERE" && CGO_ENABLED=0 go test -c -trimpath -ldflags "$(ldflags_k8s)" -o "$BIN_PEER.tmp/apimachinery.test" .) \
    || die "go test -c failed in e2e/peer (see above)"
  rm -rf "$BIN_PEER" && mv "$BIN_PEER.tmp" "$BIN_PEER"
  log "built $TEST_BIN in $((SECONDS - start))s"
}

# ---------------------------------------------------------------------------------------------
# the control plane and the operator
# ---------------------------------------------------------------------------------------------

kcm_runs() { # controller: kube-controller-manager's /healthz?verbose lists it
  local port=${SYNCGC_KCM_PORT:-16257}
  curl -sfk "https://127.0.0.1:$port/healthz?verbose" | grep -q "^\[[+-]\]$1 "
}

cluster_up() {
  "$CLUSTER" up >/dev/null
  eval "$("$CLUSTER" env)"
  local c missing=0
  for c in ${SYNCGC_KCM_CONTROLLERS//,/ }; do kcm_runs "$c" || missing=1; done
  if ((missing)); then
    log "kube-controller-manager runs without some of $SYNCGC_KCM_CONTROLLERS: restarting it with them"
    "$CLUSTER" restart-kcm
    for c in ${SYNCGC_KCM_CONTROLLERS//,/ }; do kcm_runs "$c" || die "kube-controller-manager does not run $c"; done
  fi
  # The API server taints a new node node.kubernetes.io/not-ready; the node lifecycle controller,
  # which lifts the taint once the node is Ready, does not run here. The suite counts schedulable
  # (Ready, untainted) nodes before it starts and sizes some specs by them: lift it.
  local node
  for node in $("$KUBECTL" get nodes -o jsonpath='{.items[*].metadata.name}'); do
    if "$KUBECTL" get node "$node" -o jsonpath='{.spec.taints[*].key}' | grep -qw node.kubernetes.io/not-ready; then
      "$KUBECTL" taint nodes "$node" node.kubernetes.io/not-ready:NoSchedule- >/dev/null \
        || die "could not lift the not-ready taint of node $node"
    fi
  done
  log "control plane up (KUBECONFIG=$KUBECONFIG)"
}

operator_stop() {
  [[ -f $OPERATOR_PID_FILE ]] || return 0
  local pid; pid=$(cat "$OPERATOR_PID_FILE")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q syncgc-operator.jar; then
    terminate "$pid"
    log "stopped the operator (pid $pid)"
  fi
  rm -f "$OPERATOR_PID_FILE"
}

OPERATOR_PORT=
operator_start() {
  if [[ ! -f $JAR ]]; then
    log "building $JAR"
    (cd "$ROOT" && mvn -B -q -pl operator -am package -DskipTests) || die "the operator jar did not build"
  fi
  "$KUBECTL" apply -f "$ROOT/crds/" >/dev/null
  "$KUBECTL" wait --for condition=Established crd/garbagecollectionpolicies.syncgc.dev --timeout 60s >/dev/null
  operator_stop
  java -jar "$JAR" --http-address 127.0.0.1 --http-port 0 >"$OUT/operator.log" 2>&1 &
  echo $! >"$OPERATOR_PID_FILE"
  local deadline=$((SECONDS + 180))
  until [[ -n $OPERATOR_PORT ]]; do
    kill -0 "$(cat "$OPERATOR_PID_FILE")" 2>/dev/null || { tail -30 "$OUT/operator.log" >&2; die "the operator exited (log $OUT/operator.log)"; }
    ((SECONDS < deadline)) || die "the operator did not serve health and metrics within 180s (log $OUT/operator.log)"
    OPERATOR_PORT=$(sed -n 's/.*serving health and metrics port=\([0-9]*\).*/\1/p' "$OUT/operator.log" | head -1)
    sleep 0.5
  done
  until curl -sf "http://127.0.0.1:$OPERATOR_PORT/readyz" >/dev/null; do
    kill -0 "$(cat "$OPERATOR_PID_FILE")" 2>/dev/null || { tail -30 "$OUT/operator.log" >&2; die "the operator exited (log $OUT/operator.log)"; }
    ((SECONDS < deadline)) || die "the operator is not ready after 180s (log $OUT/operator.log)"
    sleep 0.5
  done
  log "operator ready (pid $(cat "$OPERATOR_PID_FILE"), metrics http://127.0.0.1:$OPERATOR_PORT/metrics, log $OUT/operator.log)"
}

policy_apply() {
  "$KUBECTL" apply -f - >/dev/null <<'EOF'
apiVersion: syncgc.dev/v1alpha1
kind: GarbageCollectionPolicy
metadata: {name: peer-suite-core-apps-batch}
spec:
  kinds:
    - {group: "", kind: "*"}
    - {group: apps, kind: "*"}
    - {group: batch, kind: "*"}
  propagation: Synchronous
EOF
  "$KUBECTL" wait --for condition=Ready gcpolicy/peer-suite-core-apps-batch --timeout 60s >/dev/null \
    || die "the GarbageCollectionPolicy is not Ready: $("$KUBECTL" get gcpolicy peer-suite-core-apps-batch -o jsonpath='{.status.conditions}')"
  log "policy peer-suite-core-apps-batch Ready: every kind of \"\", apps and batch is Synchronous"
}

deletions_started() { # syncgc_deletions_started_total, summed over its labels
  curl -sf "http://127.0.0.1:$OPERATOR_PORT/metrics" \
    | awk '/^syncgc_deletions_started_total[ {]/ {s += $NF} END {printf "%d\n", s}'
}

# ---------------------------------------------------------------------------------------------
# the suite
# ---------------------------------------------------------------------------------------------

run_suite() {
  rm -rf "$OUT/report" && mkdir -p "$OUT/report"
  log "running the specs matching \"$FOCUS\" (log $OUT/suite.log)"
  local status=0 start=$SECONDS
  # The KWOK node is the only node; it is Ready and untainted. kube-system has no pods, nothing to
  # wait for there (--minStartupPods=0, --allowed-not-ready-nodes); logs of master and nodes cannot
  # be gathered from processes on loopback (--disable-log-dump).
  "$TEST_BIN" --kubeconfig "$KUBECONFIG" --kubectl-path "$KUBECTL" --provider skeleton \
    --minStartupPods=0 --allowed-not-ready-nodes=0 --node-schedulable-timeout=2m --system-pods-startup-timeout=1m \
    --disable-log-dump --report-dir "$OUT/report" --report-complete-ginkgo \
    --ginkgo.focus="$FOCUS" --ginkgo.fail-on-empty --ginkgo.timeout="$SUITE_TIMEOUT" --ginkgo.v --ginkgo.no-color \
    >"$OUT/suite.log" 2>&1 || status=$?
  SUITE_SECONDS=$((SECONDS - start))
  return $status
}

report() {
  local junit
  junit=$(junit_report)
  echo "== peer suite: k8s.io/kubernetes $K8S_VERSION test/e2e/apimachinery, focus \"$FOCUS\", ${SUITE_SECONDS:-?}s"
  if [[ -n $junit ]]; then
    python3 - "$junit" <<'EOF'
import sys, xml.etree.ElementTree as ET
counts = {"passed": 0, "failed": 0, "skipped": 0}
for case in ET.parse(sys.argv[1]).iter("testcase"):
    name = case.get("name", "")
    if case.find("skipped") is not None:
        counts["skipped"] += 1
        continue
    failed = case.find("failure") is not None or case.find("error") is not None
    if not name.startswith("[It]") and not failed:
        continue  # the suite's set-up and tear-down nodes
    counts["failed" if failed else "passed"] += 1
    print(("FAIL " if failed else "ok   ") + name)
    for f in case.findall("failure") + case.findall("error"):
        print("       " + (f.get("message") or "").strip().replace("\n", "\n       ")[:1500])
print("passed %(passed)d, failed %(failed)d, skipped (not focused) %(skipped)d" % counts)
EOF
    echo "JUnit: $junit"
  else
    echo "no JUnit report in $OUT/report; the end of $OUT/suite.log:"
    tail -30 "$OUT/suite.log"
  fi
  grep -E '^(Ran [0-9]+ of|(SUCCESS|FAIL)! --)' "$OUT/suite.log" || true
  # Which specs syncgc took part in: its synchronous deletions (and releases to the API server's
  # orphaning) in each spec's namespace before the framework destroys the namespace, by kind. A spec
  # that deletes its owner before syncgc has put its finalizer on it runs on Kubernetes' collector alone.
  python3 - "$OUT/suite.log" "$OUT/operator.log" <<'EOF'
import re, sys, collections, datetime
spec, namespaces = None, []
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("[sig-"):
        spec = re.sub(r" \[sig-[^]]*\]$", "", line.strip())
    m = re.search(r'Destroying namespace "([^"]+)" for this suite\. @ (\S+ \S+)', line)
    if m and spec:
        at = datetime.datetime.strptime(m.group(2), "%m/%d/%y %H:%M:%S.%f")
        namespaces.append((m.group(1), spec, at))
events = collections.defaultdict(list)  # namespace -> (time, what)
for line in open(sys.argv[2], errors="replace"):
    m = re.search(r"^(\S+)Z .*(synchronous deletion started|released to the API server's orphaning) object=([A-Za-z]+)/([^/ ]+)/", line)
    if m:
        at = datetime.datetime.strptime(m.group(1)[:23], "%Y-%m-%dT%H:%M:%S.%f")
        what = m.group(3) + (" released to orphaning" if m.group(2).startswith("released") else "")
        events[m.group(4)].append((at, what))
print("syncgc in each spec (synchronous deletions by kind, before the namespace's teardown):")
for ns, name, destroyed in namespaces:
    kinds = collections.Counter(w for at, w in events.get(ns, []) if at < destroyed)
    what = ", ".join("%s %d" % kv for kv in sorted(kinds.items())) if kinds else "none: Kubernetes' collector alone"
    print("  %-9s %s\n            %s" % (ns, name[:110], what))
EOF
  echo "syncgc: syncgc_deletions_started_total=${DELETIONS:-?}, \"synchronous deletion started\" log lines=${DELETION_LINES:-?} (both read when the suite ended)"
  echo "logs: $OUT/suite.log, $OUT/operator.log"
}

junit_report() { ls "$OUT"/report/junit*.xml 2>/dev/null | head -1 || true; }

# The specs ([It]) the JUnit report shows passed: neither failed nor skipped.
specs_passed() {
  python3 - "$1" <<'EOF'
import sys, xml.etree.ElementTree as ET
passed = 0
for case in ET.parse(sys.argv[1]).iter("testcase"):
    if not case.get("name", "").startswith("[It]"):
        continue  # the suite's set-up and tear-down nodes
    if case.find("skipped") is None and case.find("failure") is None and case.find("error") is None:
        passed += 1
print(passed)
EOF
}

# A run that passed with fewer specs than SPECS ran less than it claims: it fails.
cmd_check() {
  local junit passed
  junit=$(junit_report)
  [[ -n $junit ]] || die "no JUnit report in $OUT/report: the suite did not run (see $OUT/suite.log)"
  passed=$(specs_passed "$junit") || die "could not read $junit"
  if ((passed < SPECS)); then
    die "$passed specs passed, $SPECS expected (focus \"$FOCUS\"; SPECS in e2e/peer/run.sh, or SYNCGC_PEER_SPECS):" \
      "the others did not run (skipped, or not matched by the focus): see the report above and $OUT/suite.log"
  fi
  ((passed == SPECS)) || log "$passed specs passed, more than the $SPECS expected: raise SPECS in e2e/peer/run.sh"
  log "$passed specs passed ($SPECS expected)"
}

cmd_down() {
  operator_stop
  "$CLUSTER" down
}

cmd_up() {
  command -v java >/dev/null || die "java (17+) is required to run the operator"
  mkdir -p "$OUT"
  cluster_up
  operator_start
  policy_apply
}

cmd_all() {
  command -v java >/dev/null || die "java (17+) is required to run the operator"
  command -v python3 >/dev/null || die "python3 is required to read the JUnit report"
  cmd_build
  mkdir -p "$OUT"
  cluster_up
  trap 'operator_stop; [[ ${SYNCGC_PEER_KEEP:-} == 1 ]] || "$CLUSTER" down >/dev/null 2>&1 || true' EXIT
  operator_start
  policy_apply
  local status=0
  run_suite || status=$?
  DELETIONS=$(deletions_started || echo "?")
  DELETION_LINES=$(grep -c 'synchronous deletion started' "$OUT/operator.log" || true)
  report
  ((status == 0)) || { log "the suite failed (exit $status)"; return $status; }
  cmd_check
}

case ${1:-all} in
  all) cmd_all ;;
  build) cmd_build ;;
  up) cmd_up ;;
  down) cmd_down ;;
  check) cmd_check ;;
  *) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
