#!/usr/bin/env bash
# Render checks of the chart with standard tools, no cluster and no network once built:
#
#   helm-unittest  helm/syncgc/tests/*_test.yaml: what each set of values renders (the helm plugin,
#                  `helm unittest`, built from its Go module)
#   helm-docs      helm/README.md is what helm-docs makes of helm/README.md.gotmpl and values.yaml's
#                  comments (its table of every value); `e2e/chart-test.sh docs` (make chart-docs) writes it
#   values-schema  helm/syncgc/values.schema.json is what e2e/toolchain/values-schema (the project's own
#                  generator, Go; its go test first) makes of values.yaml: types from the defaults,
#                  descriptions from the helm-docs comments, the rest from `# @schema` annotations;
#                  `e2e/chart-test.sh schema` (make chart-schema) writes it
#   kubeconform    the chart rendered with its defaults (and an image), each helm/syncgc/ci/*-values.yaml and the
#                  optional parts on, validated (-strict: no unknown field) against the JSON schemas of
#                  Kubernetes K8S_VERSION, derived from the k8s.io/kubernetes module's swagger.json by
#                  e2e/kube-schemas.py; the CRD's own schema too (files/crds/), for the policies of
#                  Chart.yaml's artifacthub.io/crdsExamples (with the PyYAML of e2e/ct.sh's venv)
#
#   e2e/chart-test.sh build   build the four and the schemas (cached)
#   e2e/chart-test.sh test    build if needed, then run the four
#   e2e/chart-test.sh docs    write helm/README.md with helm-docs
#   e2e/chart-test.sh schema  write helm/syncgc/values.schema.json with values-schema
#
# Everything is cached in $SYNCGC_CACHE/bin (default ~/.cache/syncgc), keyed by version, and never
# enters the repository: helm-unittest-<version>/ is a helm plugin directory (HELM_PLUGINS),
# kubeconform-<version>/ and helm-docs-<version>/ hold those, values-schema-<source hash>/ the generator,
# kube-schemas-<K8S_VERSION>-<converter hash>/ the schemas;
# helm is the one e2e/cluster.sh and e2e/ct.sh build (same path), built here when missing.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

PLUGINS=$CACHE/bin/helm-unittest-$HELM_UNITTEST_VERSION
BIN_KUBECONFORM=$CACHE/bin/kubeconform-$KUBECONFORM_VERSION
BIN_HELM_DOCS=$CACHE/bin/helm-docs-$HELM_DOCS_VERSION
VALUES_SCHEMA_SRC=$HERE/toolchain/values-schema
BIN_VALUES_SCHEMA=$CACHE/bin/values-schema-$(cat "$VALUES_SCHEMA_SRC"/go.mod "$VALUES_SCHEMA_SRC"/go.sum "$VALUES_SCHEMA_SRC"/*.go | sha256sum | cut -c1-12)
PYTHON_YAML=$CACHE/bin/ct-$CT_VERSION-yamllint-$YAMLLINT_VERSION-yamale-$YAMALE_VERSION/venv/bin/python3
SCHEMAS=$CACHE/bin/kube-schemas-$K8S_VERSION-$(sha256sum "$HERE/kube-schemas.py" | cut -c1-12)
CHART=$ROOT/helm/syncgc

build_unittest() {
  [[ -x $PLUGINS/unittest/untt ]] && return
  command -v go >/dev/null || die "Go is required to build helm-unittest"
  [[ $(cd "$HERE/toolchain/helm-unittest" && go list -m -f '{{.Version}}' github.com/helm-unittest/helm-unittest) == "$HELM_UNITTEST_VERSION" ]] \
    || die "e2e/toolchain/helm-unittest/go.mod does not pin helm-unittest $HELM_UNITTEST_VERSION (e2e/common.sh)"
  rm -rf "$PLUGINS.tmp"
  (cd "$HERE/toolchain/helm-unittest" \
    && go_install_cached "$PLUGINS.tmp/unittest/untt" github.com/helm-unittest/helm-unittest/cmd/helm-unittest)
  # the plugin's own plugin.yaml names a binary per platform, fetched by an install hook: this one
  # names the binary built here
  cat >"$PLUGINS.tmp/unittest/plugin.yaml" <<YAML
name: unittest
version: "${HELM_UNITTEST_VERSION#v}"
usage: unittest for helm charts
description: helm-unittest $HELM_UNITTEST_VERSION, built from its Go module by e2e/chart-test.sh
ignoreFlags: false
command: \$HELM_PLUGIN_DIR/untt
YAML
  rm -rf "$PLUGINS" && mv "$PLUGINS.tmp" "$PLUGINS"
}

build_kubeconform() { go_install_cached "$BIN_KUBECONFORM/kubeconform" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"; }

build_helm_docs() { go_install_cached "$BIN_HELM_DOCS/helm-docs" "github.com/norwoodj/helm-docs/cmd/helm-docs@$HELM_DOCS_VERSION"; }

# helm-docs on the chart: helm/README.md from helm/README.md.gotmpl (paths are the chart directory's)
helm_docs() {
  (cd "$ROOT/helm" && "$BIN_HELM_DOCS/helm-docs" --log-level warning --chart-search-root . \
    --template-files="$ROOT/helm/README.md.gotmpl" --output-file=../README.md "$@")
}

# The project's generator of values.schema.json, from its source (keyed by its hash: rebuilt when it changes).
build_values_schema() {
  [[ -x $BIN_VALUES_SCHEMA/values-schema ]] && return
  rm -rf "$BIN_VALUES_SCHEMA.tmp"
  (cd "$VALUES_SCHEMA_SRC" && go_install_cached "$BIN_VALUES_SCHEMA.tmp/values-schema" .)
  test_values_schema
  rm -rf "$BIN_VALUES_SCHEMA" && mv "$BIN_VALUES_SCHEMA.tmp" "$BIN_VALUES_SCHEMA"
}

# Its go test, with the build's flags so that it reuses the build's packages: run when it is built
# (in CI's early builds), then a cached result in each `test` while its source is unchanged.
test_values_schema() {
  (cd "$VALUES_SCHEMA_SRC" && CGO_ENABLED=0 go test -trimpath ./...) >&2 || die "values-schema's tests failed"
}

# values.schema.json as values-schema makes it from values.yaml, on stdout
values_schema() { "$BIN_VALUES_SCHEMA/values-schema" "$CHART/values.yaml"; }

build_schemas() {
  [[ -f $SCHEMAS/.complete ]] && return
  command -v go >/dev/null || die "Go is required to fetch the k8s.io/kubernetes module"
  log "JSON schemas of Kubernetes $K8S_VERSION from the k8s.io/kubernetes module; first time only"
  # the module e2e/cluster.sh builds the control plane from: in Go's module cache once either ran
  local dir
  dir=$(cd /tmp && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -f $dir/api/openapi-spec/swagger.json ]] || die "no api/openapi-spec/swagger.json in k8s.io/kubernetes@$K8S_VERSION"
  rm -rf "$SCHEMAS" && python3 "$HERE/kube-schemas.py" "$dir/api/openapi-spec/swagger.json" "$SCHEMAS" >&2
  touch "$SCHEMAS/.complete"
}

# The chart rendered with each set of values kubeconform checks, one file each in $1.
render_all() {
  local out=$1 kube=${K8S_VERSION#v} name
  # the chart names no image of its own: the defaults with one a user built and pushed
  local image="--set image.repository=registry.example.com/syncgc-operator"
  local -a sets=("defaults:$image" "admission-policy:$image --set admissionPolicy.enabled=true")
  for values in "$CHART"/ci/*-values.yaml; do
    name=$(basename "$values" -values.yaml)
    sets+=("ci-$name:--values $values")
  done
  for set in "${sets[@]}"; do
    # shellcheck disable=SC2086 # the arguments of each set are split on purpose
    "$BIN_HELM/helm" template syncgc "$CHART" --namespace syncgc-system --kube-version "$kube" \
      ${set#*:} >"$out/${set%%:*}.yaml" || die "helm template (${set%%:*}) failed"
  done
}

build_all() {
  [[ -x $PYTHON_YAML ]] || "$HERE/ct.sh" build # yamllint's venv: PyYAML for the CRD's schema
  build_helm
  build_unittest
  build_kubeconform
  build_helm_docs
  build_values_schema
  build_schemas
}

cmd_test() {
  build_all
  log "helm-docs: helm/README.md is what helm/README.md.gotmpl and values.yaml make"
  local docs
  docs=$(helm_docs --dry-run) || die "helm-docs failed"
  if [[ $docs != "$(cat "$ROOT/helm/README.md")" ]]; then
    diff <(printf '%s\n' "$docs") "$ROOT/helm/README.md" >&2 || true
    die "helm/README.md differs from what helm-docs generates (above: < generated, > checked in): edit helm/README.md.gotmpl or values.yaml's comments, then run make chart-docs"
  fi
  log "values-schema: its own tests (go test)"
  test_values_schema
  log "values-schema: helm/syncgc/values.schema.json is what values.yaml and its annotations make"
  local schema
  schema=$(values_schema) || die "values-schema failed"
  if [[ $schema != "$(cat "$CHART/values.schema.json")" ]]; then
    diff <(printf '%s\n' "$schema") "$CHART/values.schema.json" >&2 || true
    die "helm/syncgc/values.schema.json differs from what values-schema generates (above: < generated, > checked in): edit values.yaml's @schema annotations or comments, then run make chart-schema"
  fi
  log "helm unittest helm/syncgc (helm/syncgc/tests/*_test.yaml)"
  HELM_PLUGINS=$PLUGINS "$BIN_HELM/helm" unittest --strict --color=false "$CHART"
  local rendered
  rendered=$(mktemp -d)
  trap 'rm -rf "$rendered"' RETURN
  render_all "$rendered"
  # the CRD's schema, and Chart.yaml's example policies to check against it
  "$PYTHON_YAML" "$HERE/kube-schemas.py" --crd "$rendered/crd-schemas" "$CHART"/files/crds/*.yml >/dev/null
  "$PYTHON_YAML" - "$CHART/Chart.yaml" >"$rendered/crds-examples.yaml" <<'PY'
import sys, yaml
chart = yaml.safe_load(open(sys.argv[1]))
print(yaml.safe_dump_all(yaml.safe_load(chart["annotations"]["artifacthub.io/crdsExamples"])), end="")
PY
  log "kubeconform -strict against the schemas of Kubernetes $K8S_VERSION and the CRD: $(cd "$rendered" && echo *.yaml)"
  # ServiceMonitor and PrometheusRule are the Prometheus Operator's kinds, whose schemas are not
  # Kubernetes': the alerts are checked by promtool (AlertRulesIT) instead
  "$BIN_KUBECONFORM/kubeconform" -strict -summary -skip ServiceMonitor,PrometheusRule \
    -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    -schema-location "$rendered/crd-schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$rendered"/*.yaml
}

# Writes values.schema.json only once the generator succeeded (its checks passed).
cmd_schema() {
  build_values_schema
  local schema
  schema=$(values_schema) || die "values-schema failed: values.schema.json left as it was"
  printf '%s\n' "$schema" >"$CHART/values.schema.json"
}

case ${1:-test} in
  build) build_all ;;
  test) cmd_test ;;
  docs) build_helm_docs; helm_docs ;;
  schema) cmd_schema ;;
  *) die "usage: e2e/chart-test.sh [build|test|docs|schema]" ;;
esac
