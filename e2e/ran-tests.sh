#!/usr/bin/env bash
# A suite that ran nothing fails: the make targets that run end-to-end tests (failsafe's ITs) run
# Maven through this script, which checks first that every test chosen names a test class, and after
# Maven's success that the tests ran: failsafe's reports of this run must show, for each test chosen,
# at least one test that ran and did not skip itself (a test that skips every method, as SoakIT does
# away from the local control plane, ran nothing), or for the whole suite ("all") at least one.
#
#   e2e/ran-tests.sh names ITS                 exit 1 naming each entry of ITS that matches no test class
#   e2e/ran-tests.sh ITS -- MVN...             names ITS, then MVN... -Dit.test=ITS, then the reports
#
# ITS is failsafe's -Dit.test (comma-separated class names, Class#method or Class#a+b to run some methods
# of a class, globs such as Cycles*, !exclusions, which are not checked), or "all": MVN... as given, every
# IT. A method named must be declared in its class's source.
# The tests.txt files of e2e/*/ are read into such lists by the Makefile (KIND_ITS, NOGC_ITS).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SOURCES=$ROOT/e2e/src/test/java
REPORTS=$ROOT/e2e/target/failsafe-reports

say() { printf '[ran-tests] %s\n' "$*" >&2; }

# the simple names of the test classes under e2e/src/test/java
classes() { find "$SOURCES" -name '*.java' -printf '%f\n' | sed 's/\.java$//' | sort -u; }

# the class part of one entry of ITS: Class#method -> Class, **/Foo* -> Foo*
class_of() { local e=${1%%#*}; e=${e##*/}; echo "${e%.java}"; }

# the methods part of one entry, one a line: Class#a+b* -> a, b* (nothing for a class alone)
methods_of() { [[ $1 == *#* ]] || return 0; tr '+' '\n' <<<"${1#*#}" | sed '/^$/d'; }

# the test methods declared in the sources of the classes a glob names
declared() { find "$SOURCES" -name "$1.java" -exec grep -ohE 'void [A-Za-z0-9_]+\(' {} + | sed 's/^void //; s/($//'; }

entries() { # ITS -> the entries to check, one a line (not the empty ones nor the !exclusions)
  local e list
  IFS=, read -ra list <<<"$1"
  for e in "${list[@]}"; do
    e=${e//[[:space:]]/}
    [[ -n $e && $e != '!'* ]] && echo "$e"
  done
  return 0
}

cmd_names() {
  local its=$1 e class c found bad=0 known
  [[ -n $(entries "$its") ]] || { say "error: no test chosen (an empty list: '$its')"; return 1; }
  known=$(classes)
  while read -r e; do
    [[ -n $e ]] || continue
    class=$(class_of "$e")
    found=0
    while read -r c; do
      # shellcheck disable=SC2053 # a glob on purpose: Cycles* matches CyclesIT
      [[ $c == $class ]] && { found=1; break; }
    done <<<"$known"
    if ((!found)); then
      bad=1
      local where
      where=$(grep -lE -- "^${class}(#.*)?\$" "$ROOT"/e2e/*/tests.txt 2>/dev/null | sed "s#^$ROOT/##" | paste -sd' ' - || true)
      say "error: '$e' names no test class under e2e/src/test/java${where:+ (it is a line of $where)}:" \
        "correct or remove it, so that the run does not pass without it"
      continue
    fi
    local m d methods
    methods=$(declared "$class")
    while read -r m; do
      [[ -n $m ]] || continue
      found=0
      while read -r d; do
        # shellcheck disable=SC2053 # a glob on purpose: #of* matches ofAThousand...
        [[ $d == $m ]] && { found=1; break; }
      done <<<"$methods"
      ((found)) || { bad=1; say "error: '$e': $class declares no method '$m': correct or remove it, so that the run does not pass without it"; }
    done < <(methods_of "$e")
  done < <(entries "$its")
  return $bad
}

# After the run: failsafe's TEST-*.xml written since $1 (a file made before it), checked against ITS.
check_reports() {
  local marker=$1 its=$2
  command -v python3 >/dev/null || { say "error: python3 is required to read failsafe's reports"; return 1; }
  local reports=()
  [[ -d $REPORTS ]] && mapfile -t reports < <(find "$REPORTS" -maxdepth 1 -name 'TEST-*.xml' -newer "$marker")
  if ((${#reports[@]} == 0)); then
    say "error: the suite ran no test: failsafe wrote no report in e2e/target/failsafe-reports (tests chosen: $its)"
    return 1
  fi
  python3 - "$its" "$(entries "$its" | while read -r e; do class_of "$e"; done | paste -sd, -)" "${reports[@]}" <<'EOF'
import fnmatch, sys, xml.etree.ElementTree as ET
its, chosen, files = sys.argv[1], [c for c in sys.argv[2].split(",") if c], sys.argv[3:]
runs = {}  # simple class name -> [tests, skipped, skip reasons]
for f in files:
    suite = ET.parse(f).getroot()
    name = suite.get("name", "").rsplit(".", 1)[-1]
    r = runs.setdefault(name, [0, 0, set()])
    r[0] += int(suite.get("tests", 0))
    r[1] += int(suite.get("skipped", 0))
    for case in suite.iter("testcase"):
        for s in case.findall("skipped"):  # the reason: its message, or the exception's first line
            said = (s.get("message") or s.text or "").strip().splitlines()
            r[2].add(said[0].split("TestAbortedException: ", 1)[-1][:300] if said else "no reason given")
def ran(name):
    return runs[name][0] > runs[name][1]
def why(name):
    t, s, reasons = runs[name]
    return "%s: %d of %d tests skipped themselves: %s" % (name, s, t, "; ".join(sorted(reasons)))
bad = []
if its == "all":
    total, skipped = sum(r[0] for r in runs.values()), sum(r[1] for r in runs.values())
    for name in sorted(n for n in runs if not ran(n)):
        print("[ran-tests] note: " + why(name), file=sys.stderr)
    if total <= skipped:
        bad.append("the suite ran no test: %d tests, %d skipped" % (total, skipped))
else:
    for c in chosen:
        names = [n for n in runs if fnmatch.fnmatchcase(n, c)]
        if not names:
            bad.append("%s ran no test: failsafe wrote no report of it" % c)
        bad += [why(n) for n in sorted(names) if not ran(n)]
for b in bad:
    print("[ran-tests] error: " + b, file=sys.stderr)
if bad:
    print("[ran-tests] a suite that ran nothing fails: run the tests where they can run (the reasons above)"
          " or choose others", file=sys.stderr)
    sys.exit(1)
ran_tests = sum(r[0] - r[1] for r in runs.values())
print("[ran-tests] ran %d tests (%d more skipped themselves) in %d class(es)"
      % (ran_tests, sum(r[1] for r in runs.values()), len(runs)), file=sys.stderr)
EOF
}

cmd_run() {
  local its=$1
  shift
  [[ ${1:-} == -- ]] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
  shift
  (($#)) || { say "error: no command after --"; exit 2; }
  [[ $its == all ]] || cmd_names "$its" || exit 1
  MARKER=$(mktemp) # older than every report of this run
  trap 'rm -f "$MARKER"' EXIT
  if [[ $its == all ]]; then "$@"; else "$@" "-Dit.test=$its"; fi
  check_reports "$MARKER" "$its"
}

case ${1:-} in
  names) (($# == 2)) || { say "usage: e2e/ran-tests.sh names ITS"; exit 2; }; cmd_names "$2" ;;
  "" | -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  *) cmd_run "$@" ;;
esac
