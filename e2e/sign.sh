#!/usr/bin/env bash
# The release's signing steps beside `make dist`: an SBOM of the image (syft, CycloneDX, into
# dist/ next to the jars' SBOMs), a signature (cosign, a key pair) and a SLSA provenance of the image
# (e2e/provenance.sh), a helm provenance file of the chart (a GPG key) and a signature of
# dist/SHA256SUMS (cosign sign-blob), each checked, with no service outside this machine: the image
# is pushed to a throwaway registry on loopback (e2e/toolchain/sign/registry: go-containerregistry's,
# on 127.0.0.1 only), signed there by digest, the SBOM and the provenance attached as signed
# attestations, and all verified with the public keys; a second key, a tampered chart, SHA256SUMS or
# provenance must fail to verify. Publishing to a real registry stays with the maintainer
# (docs/usage.md, "Publishing a release").
#
#   e2e/sign.sh build            build cosign, syft and the registry from e2e/toolchain/sign (cached)
#   e2e/sign.sh release IMAGE    build if needed, then the SBOM of IMAGE (name:tag, in the Docker
#                                daemon: `make dist-image`), push, sign, attest, verify; signs the
#                                chart (re-packaged: dist/syncgc-<version>.tgz and .tgz.prov) and
#                                SHA256SUMS; writes dist/syncgc-operator-image-<version>.cdx.json
#                                and .slsa.json, dist/cosign.pub, dist/chart-key.gpg,
#                                dist/SHA256SUMS.sigstore.json, and rewrites dist/SHA256SUMS
#   e2e/sign.sh check-sbom FILE  FILE is a CycloneDX SBOM of the image (make dist-check runs it)
#   e2e/sign.sh check-sums DIR   DIR/SHA256SUMS.sigstore.json is a signature of DIR/SHA256SUMS by
#                                DIR/cosign.pub (make dist-check runs it)
#
# Keys: SYNCGC_COSIGN_KEY (a cosign private key file, its password in COSIGN_PASSWORD) and
# SYNCGC_GPG_KEYRING (a binary OpenPGP secret keyring, `gpg --export-secret-keys`, its key's name in
# SYNCGC_GPG_KEY, a passphrase file in SYNCGC_GPG_PASSPHRASE_FILE if it has one) sign a real release;
# without them a cosign key pair and a GPG key are generated for this run in a temporary directory
# and thrown away with it. Never commit a private key.
#
# Environment: VERSION (default the image's tag), SYNCGC_CACHE (default ~/.cache/syncgc), DIST
# (default dist), HELM (default the one e2e/common.sh builds), SYNCGC_BUILDER_ID (e2e/provenance.sh),
# DOCKER_HOST (e2e/docker.sh up)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

# cosign, syft and registry, built together (cmd_build)
BIN_SIGN=$CACHE/bin/sign-cosign-$COSIGN_VERSION-syft-$SYFT_VERSION-ggcr-$GGCR_VERSION

WORK=""         # this run's temporary directory: image, registry, keys
REGISTRY_PID="" # the registry on loopback, stopped on exit
PUSHED_TAG=""   # the image's tag for that registry, removed from Docker on exit

# from e2e/toolchain/sign, whose go.mod pins cosign, syft and go-containerregistry at the versions of
# e2e/common.sh: the three commands on one build list, so that the modules cosign and syft share
# compile once (Go's build cache; docs/ci-times.md). The -X flags set the versions that
# `cosign version` reports and that syft writes into its SBOMs, as their release builds do.
cmd_build() {
  [[ -x $BIN_SIGN/cosign && -x $BIN_SIGN/syft && -x $BIN_SIGN/registry ]] && return
  command -v go >/dev/null || die "Go is required to build cosign, syft and the registry"
  local mod=$HERE/toolchain/sign pinned want
  pinned=$(cd "$mod" && go list -m -f '{{.Path}} {{.Version}}' \
    github.com/sigstore/cosign/v3 github.com/anchore/syft github.com/google/go-containerregistry)
  want="github.com/sigstore/cosign/v3 $COSIGN_VERSION"$'\n'"github.com/anchore/syft $SYFT_VERSION"$'\n'"github.com/google/go-containerregistry $GGCR_VERSION"
  [[ $pinned == "$want" ]] || die "e2e/toolchain/sign/go.mod does not pin cosign $COSIGN_VERSION, syft $SYFT_VERSION and go-containerregistry $GGCR_VERSION (e2e/common.sh): $pinned"
  log "building cosign $COSIGN_VERSION, syft $SYFT_VERSION and the registry (go-containerregistry $GGCR_VERSION); first time only"
  local ldflags="-s -w -X sigs.k8s.io/release-utils/version.gitVersion=$COSIGN_VERSION -X main.version=${SYFT_VERSION#v}"
  (cd "$mod" && go_install_cached "$BIN_SIGN/cosign" github.com/sigstore/cosign/v3/cmd/cosign -ldflags "$ldflags" \
    && go_install_cached "$BIN_SIGN/syft" github.com/anchore/syft/cmd/syft -ldflags "$ldflags" \
    && go_install_cached "$BIN_SIGN/registry" ./registry -ldflags "$ldflags")
}

cosign() { "$BIN_SIGN/cosign" "$@"; }
syft() { SYFT_CHECK_FOR_APP_UPDATE=false "$BIN_SIGN/syft" "$@"; }

cmd_release() {
  local image=${1:-} dist=${DIST:-dist}
  [[ -n $image && $image == *:* ]] || die "usage: e2e/sign.sh release IMAGE:TAG"
  local version=${VERSION:-${image##*:}}
  require_docker
  command -v jq >/dev/null || apt_install jq || die "jq is missing; as root: apt-get install jq"
  have_image "$image" || die "no image $image in the Docker daemon: make dist-image first"
  [[ -f $dist/SHA256SUMS ]] || die "no $dist/SHA256SUMS: make dist first"
  cmd_build
  WORK=$(mktemp -d)
  trap 'if [[ -n $PUSHED_TAG ]]; then docker rmi "$PUSHED_TAG" >/dev/null 2>&1 || true; fi
    if [[ -n $REGISTRY_PID ]]; then terminate "$REGISTRY_PID"; fi; stop_gpg_agents; rm -rf "$WORK"' EXIT
  local work=$WORK
  # the provenance first: it refuses an image that does not say what it was built from
  local provenance=$dist/syncgc-operator-image-$version.slsa.json
  log "SLSA provenance of $image -> $provenance"
  "$HERE/provenance.sh" "$image" >"$provenance"

  local sbom=$dist/syncgc-operator-image-$version.cdx.json
  log "SBOM of $image (syft $SYFT_VERSION) -> $sbom"
  docker save "$image" -o "$work/image.tar"
  syft scan "docker-archive:$work/image.tar" --quiet --source-name syncgc-operator --source-version "$version" \
    -o "cyclonedx-json=$sbom"
  check_sbom "$sbom"

  log "a registry on loopback (go-containerregistry $GGCR_VERSION)"
  "$BIN_SIGN/registry" -dir "$work/registry" >"$work/registry.out" 2>"$work/registry.log" &
  REGISTRY_PID=$!
  local i port=""
  for i in $(seq 1 100); do
    port=$(sed -n 's/^serving on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/registry.out")
    [[ -n $port ]] && curl -fsS "http://127.0.0.1:$port/v2/" >/dev/null 2>&1 && break
    ((i < 100)) || { cat "$work/registry.log" >&2; die "the registry did not start"; }
    sleep 0.1
  done
  # Docker pushes to a registry on 127.0.0.0/8 over plain HTTP without configuration
  local repo=127.0.0.1:$port/syncgc/operator
  PUSHED_TAG=$repo:$version
  docker tag "$image" "$PUSHED_TAG"
  docker push -q "$PUSHED_TAG" >/dev/null
  local digest
  digest=$(docker inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$PUSHED_TAG" | sed -n "s|^$repo@||p" | head -1)
  [[ $digest == sha256:* ]] || die "no digest for $repo:$version after the push"
  local ref=$repo@$digest
  log "pushed $ref"

  local key pub
  if [[ -n ${SYNCGC_COSIGN_KEY:-} ]]; then
    key=$SYNCGC_COSIGN_KEY
    [[ -n ${COSIGN_PASSWORD+x} ]] || die "COSIGN_PASSWORD: the password of $key"
  else
    log "a key pair for this run only (thrown away with $work)"
    mkdir -m 0700 "$work/keys"
    COSIGN_PASSWORD=$(head -c 24 /dev/urandom | base64)
    export COSIGN_PASSWORD
    (cd "$work/keys" && cosign generate-key-pair >/dev/null 2>&1)
    key=$work/keys/cosign.key
  fi
  export COSIGN_PASSWORD
  cosign public-key --key "$key" >"$dist/cosign.pub"
  pub=$dist/cosign.pub

  log "cosign $COSIGN_VERSION: sign $ref, attest its SBOM and its SLSA provenance"
  cosign_offline "$work"
  cosign sign "${SIGN_FLAGS[@]}" --key "$key" "$ref" >"$work/sign.log" 2>&1 \
    || { cat "$work/sign.log" >&2; die "cosign sign"; }
  cosign attest "${SIGN_FLAGS[@]}" --key "$key" --type cyclonedx --predicate "$sbom" "$ref" >"$work/attest.log" 2>&1 \
    || { cat "$work/attest.log" >&2; die "cosign attest"; }
  cosign attest "${SIGN_FLAGS[@]}" --key "$key" --type slsaprovenance1 --predicate "$provenance" "$ref" \
    >"$work/attest-slsa.log" 2>&1 || { cat "$work/attest-slsa.log" >&2; die "cosign attest --type slsaprovenance1"; }

  verify "$ref" "$digest" "$pub" "$sbom" "$provenance" "$work"
  log "a key that did not sign must fail"
  mkdir -m 0700 "$work/other"
  (cd "$work/other" && COSIGN_PASSWORD=x cosign generate-key-pair >/dev/null 2>&1)
  if cosign verify "${VERIFY_FLAGS[@]}" --key "$work/other/cosign.pub" "$ref" >/dev/null 2>&1; then
    die "cosign verify accepted a key that did not sign"
  fi
  local type
  for type in cyclonedx slsaprovenance1; do
    if cosign verify-attestation "${VERIFY_FLAGS[@]}" --key "$work/other/cosign.pub" --type $type "$ref" >/dev/null 2>&1; then
      die "cosign verify-attestation --type $type accepted a key that did not sign"
    fi
  done
  check_tampered_provenance "$digest" "$pub" "$work"

  sign_chart "$dist" "$version" "$work"
  # as make dist writes it: every file of dist/ but itself (and its signature)
  (cd "$dist" && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' ! -name '.*' -printf '%P\n' | LC_ALL=C sort \
    | xargs sha256sum --) >"$work/SHA256SUMS"
  mv "$work/SHA256SUMS" "$dist/SHA256SUMS"
  sign_sums "$dist" "$key" "$work"
  log "passed: $image signed, its SBOM and provenance attested ($digest), verified with $pub; the chart and SHA256SUMS signed and verified"
}

# verify REF DIGEST PUB SBOM PROVENANCE WORK: the signature, the SBOM and the provenance attestations,
# with the public key only
verify() {
  local ref=$1 digest=$2 pub=$3 sbom=$4 provenance=$5 work=$6
  log "cosign verify, verify-attestation with $pub"
  cosign verify "${VERIFY_FLAGS[@]}" --key "$pub" "$ref" >"$work/verify.json" 2>"$work/verify.log" \
    || { cat "$work/verify.log" >&2; die "cosign verify"; }
  jq -e --arg d "$digest" 'all(.[]; .critical.image."docker-manifest-digest" == $d)' "$work/verify.json" >/dev/null \
    || die "the signature is not of $digest: $(cat "$work/verify.json")"
  cosign verify-attestation "${VERIFY_FLAGS[@]}" --key "$pub" --type cyclonedx "$ref" >"$work/attestation.json" 2>"$work/attestation.log" \
    || { cat "$work/attestation.log" >&2; die "cosign verify-attestation"; }
  # the attested predicate is the SBOM of dist/
  jq -c '.payload | @base64d | fromjson | .predicate' "$work/attestation.json" | jq -S . >"$work/attested.json"
  jq -S . "$sbom" >"$work/sbom.json"
  cmp -s "$work/attested.json" "$work/sbom.json" || die "the attested SBOM is not $sbom"
  cosign verify-attestation "${VERIFY_FLAGS[@]}" --key "$pub" --type slsaprovenance1 "$ref" >"$work/slsa.json" 2>"$work/slsa.log" \
    || { cat "$work/slsa.log" >&2; die "cosign verify-attestation --type slsaprovenance1"; }
  # the attested statement is of this image, and its predicate is the provenance made from it
  jq -e --arg d "${digest#sha256:}" '.payload | @base64d | fromjson | .subject | any(.digest.sha256 == $d)' \
    "$work/slsa.json" >/dev/null || die "the provenance's subject is not $digest"
  jq -c '.payload | @base64d | fromjson | .predicate' "$work/slsa.json" | jq -S . >"$work/attested-slsa.json"
  cmp -s "$work/attested-slsa.json" <(jq -S . "$provenance") || die "the attested provenance is not $provenance"
}

# check_tampered_provenance DIGEST PUB WORK: the provenance envelope that verify-attestation checked,
# as a Sigstore bundle, verifies offline (cosign verify-blob-attestation) as it is, and fails once one
# byte of its statement is changed: the runtime base image's digest in the predicate
check_tampered_provenance() {
  local digest=$1 pub=$2 work=$3
  log "a tampered provenance must fail"
  jq -c --arg hint "" '{mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
      verificationMaterial: {publicKey: {hint: $hint}},
      dsseEnvelope: {payload, payloadType, signatures: [.signatures[] | {sig, keyid}]}}' \
    "$work/slsa.json" | head -1 >"$work/slsa.bundle.json"
  jq -c '.dsseEnvelope.payload |= (@base64d | fromjson
      | (.predicate.buildDefinition.resolvedDependencies[] | select(.name == "RUNTIME_IMAGE") | .digest.sha256)
        |= (.[:-4] + "0000") | tojson | @base64)' \
    "$work/slsa.bundle.json" >"$work/tampered.bundle.json"
  local bundle
  for bundle in slsa tampered; do
    if cosign verify-blob-attestation "${VERIFY_FLAGS[@]}" --key "$pub" --type slsaprovenance1 \
        --bundle "$work/$bundle.bundle.json" --digest "${digest#sha256:}" --digestAlg sha256 \
        >"$work/$bundle.verify.log" 2>&1; then
      [[ $bundle == slsa ]] || die "cosign verify-blob-attestation accepted a tampered provenance"
    else
      [[ $bundle == tampered ]] || { cat "$work/$bundle.verify.log" >&2; die "cosign verify-blob-attestation of the provenance envelope"; }
    fi
  done
}

# sign_chart DIST VERSION WORK: the chart package re-packaged with a helm provenance file
# (`helm package --sign`: the chart's metadata and the package's sha256, signed with a GPG key);
# its content must be the package's of make dist; `helm verify` with the public keyring, which goes
# into DIST/chart-key.gpg, must pass, and must fail with a second key and with a tampered package
use_helm() {
  HELM=${HELM:-}
  [[ -n $HELM && -x $HELM ]] || { build_helm; HELM=$BIN_HELM/helm; }
}
sign_chart() {
  local dist=$1 version=$2 work=$3
  local chart=$dist/syncgc-$version.tgz keyring name passphrase=()
  [[ -f $chart ]] || die "no $chart: make dist first"
  command -v gpg >/dev/null || apt_install gnupg || die "gpg is missing; as root: apt-get install gnupg"
  use_helm
  if [[ -n ${SYNCGC_GPG_KEYRING:-} ]]; then
    keyring=$SYNCGC_GPG_KEYRING
    name=${SYNCGC_GPG_KEY:?the name of the key in $keyring}
    [[ -z ${SYNCGC_GPG_PASSPHRASE_FILE:-} ]] || passphrase=(--passphrase-file "$SYNCGC_GPG_PASSPHRASE_FILE")
    gpg --batch --quiet --homedir "$(gpg_home "$work/gnupg")" --import "$keyring" 2>/dev/null \
      || die "gpg could not import $keyring (a binary keyring: gpg --export-secret-keys)"
  else
    log "a GPG key for this run only (thrown away with $work)"
    name="syncgc chart, this run only"
    gpg_key "$work/gnupg" "$name <chart@syncgc.invalid>"
    keyring=$work/chart-secring.gpg
    gpg --batch --homedir "$work/gnupg" --export-secret-keys >"$keyring"
  fi
  gpg --batch --homedir "$work/gnupg" --export >"$dist/chart-key.gpg"
  [[ -s $dist/chart-key.gpg ]] || die "no public key of $name"

  log "helm package --sign $chart"
  mkdir -p "$work/chart" "$work/signed"
  tar -C "$work/chart" -xzmf "$chart" # -m: the files of a package helm just made can be dated ahead of the clock
  "$HELM" package --sign --key "$name" --keyring "$keyring" "${passphrase[@]}" "$work/chart/syncgc" -d "$work/signed" >/dev/null \
    || die "helm package --sign with the key '$name' of $keyring"
  mkdir "$work/chart-signed" && tar -C "$work/chart-signed" -xzmf "$work/signed/syncgc-$version.tgz"
  diff -r "$work/chart" "$work/chart-signed" >&2 || die "the signed chart package's files are not $chart's"
  mv "$work/signed/syncgc-$version.tgz" "$work/signed/syncgc-$version.tgz.prov" "$dist/"
  "$HELM" verify --keyring "$dist/chart-key.gpg" "$chart" >"$work/helm-verify.log" 2>&1 \
    || { cat "$work/helm-verify.log" >&2; die "helm verify $chart"; }

  log "a second GPG key and a tampered chart package must fail helm verify"
  gpg_key "$work/gnupg-other" "another key <other@syncgc.invalid>"
  gpg --batch --homedir "$work/gnupg-other" --export >"$work/other.gpg"
  if "$HELM" verify --keyring "$work/other.gpg" "$chart" >/dev/null 2>&1; then
    die "helm verify accepted a key that did not sign $chart"
  fi
  mkdir "$work/tampered" && cp "$chart.prov" "$work/tampered/"
  { cat "$chart"; echo tampered | gzip -n; } >"$work/tampered/$(basename "$chart")" # still a gzip stream, one member more
  if "$HELM" verify --keyring "$dist/chart-key.gpg" "$work/tampered/$(basename "$chart")" >/dev/null 2>&1; then
    die "helm verify accepted a tampered $chart"
  fi
}

# gpg_key HOME UID: a GPG home with a new signing key (Ed25519, no passphrase: it lives only in WORK).
# helm reads a binary keyring (gpg --export, --export-secret-keys), not GnuPG's keybox; Ed25519 keys
# sign and verify there, and generate at once where an RSA 3072 key took 1 to 3 s here.
gpg_home() { mkdir -p -m 0700 "$1" && echo "$1"; }
gpg_key() {
  gpg --batch --quiet --homedir "$(gpg_home "$1")" --passphrase '' --quick-gen-key "$2" ed25519 sign never 2>/dev/null \
    || die "gpg could not generate a key in $1"
}
# the gpg-agents the key generation started, one per GPG home of this run
stop_gpg_agents() {
  local home
  for home in "$WORK"/gnupg*; do
    [[ -d $home ]] && gpgconf --homedir "$home" --kill gpg-agent 2>/dev/null || true
  done
}

# sign_sums DIST KEY WORK: DIST/SHA256SUMS signed with the image's key (cosign sign-blob, a Sigstore
# bundle in DIST/SHA256SUMS.sigstore.json), then checked: with DIST/cosign.pub it verifies, with a
# second key and for a tampered SHA256SUMS it must not
sign_sums() {
  local dist=$1 key=$2 work=$3
  log "cosign sign-blob $dist/SHA256SUMS"
  cosign sign-blob "${SIGN_FLAGS[@]}" --key "$key" --bundle "$dist/SHA256SUMS.sigstore.json" "$dist/SHA256SUMS" \
    >"$work/sign-blob.log" 2>&1 || { cat "$work/sign-blob.log" >&2; die "cosign sign-blob $dist/SHA256SUMS"; }
  chmod 0644 "$dist/SHA256SUMS.sigstore.json"
  check_sums "$dist"
  log "a second key and a tampered SHA256SUMS must fail"
  if cosign verify-blob "${VERIFY_FLAGS[@]}" --key "$work/other/cosign.pub" --bundle "$dist/SHA256SUMS.sigstore.json" \
      "$dist/SHA256SUMS" >/dev/null 2>&1; then
    die "cosign verify-blob accepted a key that did not sign $dist/SHA256SUMS"
  fi
  # its first checksum's first digit changed
  awk 'NR == 1 { $0 = (substr($0, 1, 1) == "0" ? "1" : "0") substr($0, 2) } 1' "$dist/SHA256SUMS" >"$work/SHA256SUMS.tampered"
  if cosign verify-blob "${VERIFY_FLAGS[@]}" --key "$dist/cosign.pub" --bundle "$dist/SHA256SUMS.sigstore.json" \
      "$work/SHA256SUMS.tampered" >/dev/null 2>&1; then
    die "cosign verify-blob accepted a tampered SHA256SUMS"
  fi
}

# check_sums DIR: DIR/SHA256SUMS.sigstore.json is a signature of DIR/SHA256SUMS by DIR/cosign.pub
check_sums() {
  local dir=${1:?usage: e2e/sign.sh check-sums DIR}
  [[ -x $BIN_SIGN/cosign ]] || die "no cosign: e2e/sign.sh build"
  cosign verify-blob "${VERIFY_FLAGS[@]}" --key "$dir/cosign.pub" --bundle "$dir/SHA256SUMS.sigstore.json" \
    "$dir/SHA256SUMS" >/dev/null 2>&1 || die "$dir/SHA256SUMS.sigstore.json is not a signature of $dir/SHA256SUMS by $dir/cosign.pub"
}

# check_sbom FILE: a CycloneDX SBOM of the operator image: its Debian packages, the jar's libraries, the JRE
check_sbom() {
  local sbom=$1
  jq -e '.bomFormat == "CycloneDX"' "$sbom" >/dev/null || die "$sbom is not CycloneDX"
  jq -e '[.components[]?.purl // empty] | any(startswith("pkg:deb/debian/"))' "$sbom" >/dev/null \
    || die "$sbom names no Debian package of the image"
  jq -e '[.components[]?.purl // empty] | any(startswith("pkg:maven/io.fabric8/"))' "$sbom" >/dev/null \
    || die "$sbom names no library of the operator jar (io.fabric8)"
  jq -e '[.components[]?.purl // empty] | any(startswith("pkg:generic/oracle/openjdk@17"))' "$sbom" >/dev/null \
    || die "$sbom names no Java 17 runtime (the image's jlink JRE)"
}

# cosign 3 fetches Sigstore's trust root and signing configuration (from its TUF repository) and
# writes to Sigstore's transparency log unless told otherwise: here a signing configuration that
# names no service and an empty trust root (both made by cosign itself, in cosign_offline), and
# verification with the public key alone (--insecure-ignore-tlog: there is no log to look in).
SIGN_FLAGS=()
VERIFY_FLAGS=(--insecure-ignore-tlog)
cosign_offline() { # DIR
  cosign signing-config create --out "$1/signing-config.json" >/dev/null
  cosign trusted-root create --out "$1/trusted-root.json" >/dev/null
  SIGN_FLAGS=(--yes --signing-config "$1/signing-config.json" --trusted-root "$1/trusted-root.json")
}

case ${1:-} in
  build) cmd_build ;;
  release) shift; cmd_release "$@" ;;
  check-sbom) shift; check_sbom "$@" ;;
  check-sums) shift; check_sums "$@" ;;
  *) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
