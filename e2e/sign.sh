#!/usr/bin/env bash
# The operator image's release steps beside `make dist`: an SBOM of the image (syft, CycloneDX, into
# dist/ next to the jars' SBOMs) and a signature (cosign, a key pair), both checked, with no service
# outside this machine: the image is pushed to a throwaway registry on loopback (e2e/toolchain/sign/registry:
# go-containerregistry's, on 127.0.0.1 only), signed there by digest, the SBOM attached as a signed
# attestation, and both verified with the public key; a second key must fail to verify. Publishing
# to a real registry stays with the maintainer (docs/usage.md, "Publishing a release").
#
#   e2e/sign.sh build            build cosign, syft and the registry from e2e/toolchain/sign (cached)
#   e2e/sign.sh release IMAGE    build if needed, then the SBOM of IMAGE (name:tag, in the Docker
#                                daemon: `make dist-image`), push, sign, attest, verify; writes
#                                dist/syncgc-operator-image-<version>.cdx.json and dist/cosign.pub,
#                                and rewrites dist/SHA256SUMS
#   e2e/sign.sh check-sbom FILE  FILE is a CycloneDX SBOM of the image (make dist-check runs it)
#
# Keys: SYNCGC_COSIGN_KEY (a cosign private key file, its password in COSIGN_PASSWORD) signs a real
# release; without it a key pair is generated for this run in a temporary directory (its password
# random) and thrown away with it. Never commit a private key.
#
# Environment: VERSION (default the image's tag), SYNCGC_CACHE (default ~/.cache/syncgc), DIST
# (default dist), DOCKER_HOST (e2e/docker.sh up)
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
    if [[ -n $REGISTRY_PID ]]; then terminate "$REGISTRY_PID"; fi; rm -rf "$WORK"' EXIT
  local work=$WORK

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

  log "cosign $COSIGN_VERSION: sign $ref, attest its SBOM"
  cosign_offline "$work"
  cosign sign "${SIGN_FLAGS[@]}" --key "$key" "$ref" >"$work/sign.log" 2>&1 \
    || { cat "$work/sign.log" >&2; die "cosign sign"; }
  cosign attest "${SIGN_FLAGS[@]}" --key "$key" --type cyclonedx --predicate "$sbom" "$ref" >"$work/attest.log" 2>&1 \
    || { cat "$work/attest.log" >&2; die "cosign attest"; }

  verify "$ref" "$digest" "$pub" "$sbom" "$work"
  log "a key that did not sign must fail"
  mkdir -m 0700 "$work/other"
  (cd "$work/other" && COSIGN_PASSWORD=x cosign generate-key-pair >/dev/null 2>&1)
  if cosign verify "${VERIFY_FLAGS[@]}" --key "$work/other/cosign.pub" "$ref" >/dev/null 2>&1; then
    die "cosign verify accepted a key that did not sign"
  fi
  if cosign verify-attestation "${VERIFY_FLAGS[@]}" --key "$work/other/cosign.pub" --type cyclonedx "$ref" >/dev/null 2>&1; then
    die "cosign verify-attestation accepted a key that did not sign"
  fi

  # as make dist writes it: every file of dist/ but itself
  (cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS ! -name '.*' -printf '%P\n' | LC_ALL=C sort \
    | xargs sha256sum --) >"$work/SHA256SUMS"
  mv "$work/SHA256SUMS" "$dist/SHA256SUMS"
  log "passed: $image signed and its SBOM attested ($digest), verified with $pub"
}

# verify REF DIGEST PUB SBOM WORK: the signature and the SBOM attestation, with the public key only
verify() {
  local ref=$1 digest=$2 pub=$3 sbom=$4 work=$5
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
  *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
