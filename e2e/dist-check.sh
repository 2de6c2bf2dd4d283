#!/usr/bin/env bash
# Checks the release artifacts `make dist` wrote (`make dist-check` runs it): the krew manifest against its
# archive (and that the check refuses a wrong sha256), no Prometheus class in the plugin's jar, the
# plugin's completion as krew unpacks it, the chart
# package (LICENSE, helm lint --strict with an image, appVersion, artifacthub.io/images at VERSION), the
# jars' CycloneDX SBOMs, the Dockerfile's image labels, the image's SBOM, the chart's provenance file
# (helm verify) and SHA256SUMS' signature (cosign verify-blob) once `make dist-sign` wrote them, and
# SHA256SUMS. Exits 1 at the first check that fails, naming it.
#
# Environment: VERSION (required), DIST (default dist), HELM (default helm on PATH, else the cached one),
# IMAGE (the image the chart is linted with; default syncgc/operator)
set -euo pipefail
# never `cmd | grep -q`: grep stops reading at the first match, cmd dies of SIGPIPE, and pipefail fails the pipe

: "${VERSION:?is required: make dist-check gives the appVersion of helm/syncgc/Chart.yaml}"
DIST=${DIST:-dist}
HELM=${HELM:-$(command -v helm 2>/dev/null || echo "${SYNCGC_CACHE:-$HOME/.cache/syncgc}/tools/helm")}
IMAGE=${IMAGE:-syncgc/operator}
KREW_ARCHIVE=$DIST/kubectl-syncgc-v$VERSION.tar.gz
CHART=$DIST/syncgc-$VERSION.tgz

fail() { echo "error: $*" >&2; exit 1; }

cli/krew/verify.sh "$DIST/syncgc.yaml" "$KREW_ARCHIVE"
# the check must refuse a manifest whose sha256 is not the archive's
tampered=$DIST/.tampered.yaml
sed 's/^\(    sha256: "\).\{8\}/\1deadbeef/' "$DIST/syncgc.yaml" > "$tampered"
if cli/krew/verify.sh "$tampered" "$KREW_ARCHIVE" 2>/dev/null; then
  rm -f "$tampered"
  fail "verify.sh accepted a wrong sha256"
fi
rm -f "$tampered"

# the plugin serves no metrics: its jar holds no Prometheus class (the operator's meters live in operator/)
jar=$(mktemp)
tar -xzOf "$KREW_ARCHIVE" syncgc-cli.jar > "$jar"
found=$(unzip -Z1 "$jar" | grep -E '^io/(prometheus/|micrometer/prometheus).*\.class$' || true)
rm -f "$jar"
[[ -z $found ]] || fail "the plugin's jar holds $(wc -l <<<"$found") Prometheus classes, such as $(head -1 <<<"$found")"

# the plugin as krew unpacks it runs: its completion prints the subcommands and cobra's directive, nothing else
stage=$(mktemp -d)
tar -C "$stage" -xzf "$KREW_ARCHIVE"
out=$(XDG_CACHE_HOME=$stage/cache "$stage/kubectl_complete-syncgc" '')
rm -rf "$stage"
grep -x tree >/dev/null <<<"$out" && [[ $(grep -v '^[a-z]*$' <<<"$out") == ":4" ]] \
  || fail "the krew archive's kubectl_complete-syncgc printed: $out"
tar -tzf "$CHART" | grep -x syncgc/LICENSE >/dev/null || fail "the chart package lacks LICENSE"
# the chart names no image of its own: lint it with one
"$HELM" lint --strict "$CHART" --set image.repository="$IMAGE" >/dev/null
chart=$("$HELM" show chart "$CHART")
grep -qx "appVersion: $VERSION" <<<"$chart" || fail "the chart package's appVersion is not $VERSION"
if grep -q '^  artifacthub.io/images:' <<<"$chart"; then
  grep -qx "      image: [^:]*:$VERSION" <<<"$chart" \
    || fail "the chart's artifacthub.io/images does not name the image at $VERSION"
fi

for bom in "$DIST/syncgc-operator-$VERSION.cdx.json" "$DIST/kubectl-syncgc-$VERSION.cdx.json"; do
  { grep -Eq '"bomFormat" *: *"CycloneDX"' "$bom" && grep -q '"io.fabric8"' "$bom"; } \
    || fail "$bom is not a CycloneDX SBOM of the jar"
done
for label in source version revision licenses; do
  grep -q "org.opencontainers.image.$label=" Dockerfile || fail "Dockerfile lacks org.opencontainers.image.$label"
done
# the image's SBOM, once make dist-sign wrote it (its signature is verified there, in the registry that holds it)
image_sbom=$DIST/syncgc-operator-image-$VERSION.cdx.json
if [[ -f $image_sbom ]]; then
  e2e/sign.sh check-sbom "$image_sbom"
  [[ -s $DIST/cosign.pub ]] || fail "$image_sbom is there but $DIST/cosign.pub is not"
fi
# the chart's provenance file and SHA256SUMS' signature, once make dist-sign wrote them
if [[ -f $CHART.prov ]]; then
  "$HELM" verify --keyring "$DIST/chart-key.gpg" "$CHART" >/dev/null || fail "helm verify $CHART with $DIST/chart-key.gpg"
fi
if [[ -f $DIST/SHA256SUMS.sigstore.json ]]; then
  e2e/sign.sh check-sums "$DIST"
fi
(cd "$DIST" && sha256sum --quiet -c SHA256SUMS)
echo "dist-check: $DIST/ holds a consistent release $VERSION"
