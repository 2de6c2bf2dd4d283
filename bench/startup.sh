#!/usr/bin/env bash
# Start-up of one operator jar against the cluster of $KUBECONFIG, which already holds the objects:
# time until its graph holds TARGET objects, its CPU then, and its heap after full GC once the queue
# is drained. Used for the paired start-up figures in docs/benchmarks.md ("1,000,000 tracked objects").
# usage: bench/startup.sh JAR TARGET_OBJECTS [HEAP]   (HEAP: -Xmx, default 1g)
set -euo pipefail
JAR=$1; TARGET=$2; HEAP=${3:-1g}; PORT=${SYNCGC_STARTUP_PORT:-39999}
metric() { curl -s "localhost:$PORT/metrics" 2>/dev/null | awk -v m="$1" '$1 == m {print $2}' || true; }
T0=$(date +%s.%N)
java "-Xmx$HEAP" -jar "$JAR" --http-port "$PORT" --http-address 127.0.0.1 > "${TMPDIR:-/tmp}/syncgc-startup.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
while true; do
  sleep 0.5
  N=$(metric syncgc_graph_objects); N=${N%.*}
  if [[ -n "$N" && "$N" -ge "$TARGET" ]]; then
    echo "graph holds $N objects after $(echo "$(date +%s.%N) - $T0" | bc) s, process CPU $(metric process_cpu_seconds_total) s"
    break
  fi
  if [[ $(echo "$(date +%s.%N) - $T0 > 600" | bc) == 1 ]]; then echo "timeout: ${N:-0} objects"; exit 1; fi
done
while [[ "$(metric syncgc_queue_depth)" != "0.0" ]]; do sleep 0.5; done
jcmd $PID GC.run >/dev/null; sleep 2; jcmd $PID GC.run >/dev/null; sleep 2
jcmd $PID GC.heap_info | grep -m1 'garbage-first heap'
