#!/usr/bin/env bash
# `ct lint` (helm/chart-testing) of the chart, as chart repositories run it: Chart.yaml against ct's
# schema (yamale), Chart.yaml and the values files against ct's YAML rules (yamllint, helm/lintconf.yaml),
# then `helm lint --strict` with each helm/syncgc/ci/*-values.yaml (default-values.yaml: the defaults and an image).
#
#   e2e/ct.sh build    build ct from its Go module, install yamllint and yamale into a venv (cached)
#   e2e/ct.sh lint     build if needed, then `ct lint --config ct.yaml --all` (no network once built)
#
# Everything is cached in $SYNCGC_CACHE/bin (default ~/.cache/syncgc), keyed by version, and never
# enters the repository: ct-<version>/ holds ct, ct's etc/ (chart_schema.yaml) and venv/; helm is
# the one e2e/cluster.sh builds (same path), built here when missing.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

BIN_CT=$CACHE/bin/ct-$CT_VERSION-yamllint-$YAMLLINT_VERSION-yamale-$YAMALE_VERSION

build_ct() {
  [[ -f $BIN_CT/.complete ]] && return
  command -v go >/dev/null || die "Go is required to build ct"
  log "building ct $CT_VERSION, yamllint $YAMLLINT_VERSION and yamale $YAMALE_VERSION; first time only"
  # A venv keeps its own path in its scripts: it is made in place, and .complete marks it whole.
  rm -rf "$BIN_CT" && mkdir -p "$BIN_CT/etc"
  # from e2e/toolchain/ct, whose go.mod pins the version (the proxy refuses `go install ct@version`)
  (cd "$HERE/toolchain/ct" && go_install_cached "$BIN_CT/ct" github.com/helm/chart-testing/v3/ct \
    -ldflags "-s -w -X github.com/helm/chart-testing/v3/ct/cmd.Version=$CT_VERSION")
  # ct's schema of Chart.yaml ships in the module's source, as its image installs it in /etc/ct
  local src
  src=$(cd "$HERE/toolchain/ct" && go list -m -f '{{.Dir}}' github.com/helm/chart-testing/v3)
  [[ $(cd "$HERE/toolchain/ct" && go list -m -f '{{.Version}}' github.com/helm/chart-testing/v3) == "$CT_VERSION" ]] \
    || die "e2e/toolchain/ct/go.mod does not pin ct $CT_VERSION (e2e/common.sh)"
  cp "$src/etc/chart_schema.yaml" "$BIN_CT/etc/"
  if ! python3 -m venv "$BIN_CT/venv" >/dev/null 2>&1; then
    rm -rf "$BIN_CT/venv"
    apt_install python3-venv
    python3 -m venv "$BIN_CT/venv"
  fi
  "$BIN_CT/venv/bin/pip" install -q --disable-pip-version-check \
    "yamllint==$YAMLLINT_VERSION" "yamale==$YAMALE_VERSION"
  touch "$BIN_CT/.complete"
}

cmd_lint() {
  build_helm
  build_ct
  cd "$ROOT"
  # ct runs helm, yamllint and yamale from PATH; --all: every chart under chart-dirs, without git
  PATH="$BIN_CT:$BIN_CT/venv/bin:$BIN_HELM:$PATH" \
    ct lint --config ct.yaml --all --chart-yaml-schema "$BIN_CT/etc/chart_schema.yaml"
}

case ${1:-lint} in
  build) build_helm; build_ct ;;
  lint) cmd_lint ;;
  *) die "usage: e2e/ct.sh [build|lint]" ;;
esac
