#!/usr/bin/env bash
# Time to ready of the chart's operator Pod on kind (docs/benchmarks.md, "Operator image"): deletes
# the Pod RUNS times; for each new Pod, the seconds from its creationTimestamp to the first 200 of
# its /readyz, asked every 0.2 s through the API server's Pod proxy (the readiness probe's 5 s
# period would hide the difference). Prints each run, then the median. Needs `e2e/kind.sh up`.
#
# Environment: RUNS (default 5), KUBECONFIG (of e2e/kind.sh up)
set -euo pipefail
NS=syncgc-system
SELECTOR=app.kubernetes.io/name=syncgc,app.kubernetes.io/component=operator
RUNS=${RUNS:-5}

image=$(kubectl -n "$NS" get deployment syncgc -o jsonpath='{.spec.template.spec.containers[0].image}')
times=()
for ((run = 1; run <= RUNS; run++)); do
  old=$(kubectl -n "$NS" get pods -l "$SELECTOR" -o jsonpath='{.items[*].metadata.name}')
  kubectl -n "$NS" delete pod $old --wait=false >/dev/null
  pod=""
  until [[ -n $pod ]]; do
    pod=$(kubectl -n "$NS" get pods -l "$SELECTOR" -o json \
      | jq -r --arg old "$old" '.items[] | select(.metadata.name as $n | $old | split(" ") | index($n) | not) | .metadata.name' | head -1)
    sleep 0.2
  done
  created=$(date -d "$(kubectl -n "$NS" get pod "$pod" -o jsonpath='{.metadata.creationTimestamp}')" +%s)
  until kubectl get --raw "/api/v1/namespaces/$NS/pods/$pod:8080/proxy/readyz" >/dev/null 2>&1; do sleep 0.2; done
  ready=$EPOCHREALTIME
  times+=("$(awk -v r="$ready" -v c="$created" 'BEGIN { printf "%.1f", r - c }')")
  echo "run $run: $pod ready after ${times[-1]} s" >&2
  kubectl -n "$NS" wait --for=delete pod $old --timeout 60s >/dev/null 2>&1 || true # one Pod at a time
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "$image: time to ready ${times[*]} s, median $median s"
