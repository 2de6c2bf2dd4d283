#!/usr/bin/env bash
# `make cli-docs-check`: every command block of docs/cli.md run against the local control plane (or
# KUBECONFIG's cluster) with the operator running beside it, each output compared with the page's
# (e2e/cli-docs.py says how, and how a block is marked as an example only). The jars come from
# `make plugin`; the operator is started here and stopped by its pid; the page's setup makes its own
# namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${KUBECONFIG:-} ]]; then
  e2e/cluster.sh up | tail -1
  eval "$(e2e/cluster.sh env)"
fi
[[ -f operator/target/syncgc-operator.jar && -f cli/target/syncgc-cli.jar ]] || ${MVN:-mvn -B} -q -pl operator,cli -am package -DskipTests
export PATH=$PWD/cli/bin:$PATH
kubectl apply -f crds/ >/dev/null
LOG=$(mktemp /tmp/cli-docs-operator.XXXXXX.log)
java -jar operator/target/syncgc-operator.jar --http-port "${SYNCGC_CLI_DOCS_HTTP_PORT:-18089}" \
  --waiting-event-interval 2s >"$LOG" 2>&1 &
OPERATOR=$!
trap 'kill $OPERATOR 2>/dev/null || true; wait $OPERATOR 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:${SYNCGC_CLI_DOCS_HTTP_PORT:-18089}/readyz" >/dev/null; do
  kill -0 $OPERATOR 2>/dev/null || { echo "the operator exited; its log: $LOG" >&2; tail -20 "$LOG" >&2; exit 1; }
  sleep 0.5
done
python3 e2e/cli-docs.py --page "${CLI_DOCS_PAGE:-docs/cli.md}" "$@"
