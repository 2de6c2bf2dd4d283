#!/usr/bin/env bash
# The SLSA provenance (v1 predicate, https://slsa.dev/provenance/v1) of an operator image that
# `make dist-image` built, from what the build recorded in the image: its labels (the commit, the
# source, the Dockerfile's sha256, the base images by digest) and its creation time. e2e/sign.sh
# attests it with cosign (--type slsaprovenance1).
#
#   e2e/provenance.sh IMAGE   the predicate (JSON) on stdout; exits 1, naming it, when the image does
#                             not say what it was built from: a label missing, a base image given by
#                             tag, a base image missing here, the runtime base's layers not the first
#                             of the image's, or a Dockerfile that is not the one built
#
# Environment: SYNCGC_BUILDER_ID (the builder's URI; default urn:syncgc:make-dist-image:<host name>),
# DOCKER_HOST (e2e/docker.sh up)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

image=${1:?usage: e2e/provenance.sh IMAGE}
require_docker
have_image "$image" || die "no image $image in the Docker daemon: make dist-image first"

label() { # KEY: the image's label KEY, which must be set
  local value
  value=$(docker image inspect --format "{{index .Config.Labels \"$1\"}}" "$image")
  [[ -n $value && $value != "<no value>" && $value != unknown ]] || die "$image has no label $1: build it with make dist-image"
  echo "$value"
}

revision=$(label org.opencontainers.image.revision)
source_url=$(label org.opencontainers.image.source)
version=$(label org.opencontainers.image.version)
dockerfile=$(label dev.syncgc.image.dockerfile-sha256)
build_image=$(label dev.syncgc.image.build-image)
runtime_image=$(label org.opencontainers.image.base.name)
"$HERE/images.sh" check-pinned "$build_image" "$runtime_image"
for base in "$build_image" "$runtime_image"; do
  have_image "$base" || die "the base image $base is not here: its digest cannot be checked"
done
# the image is on its runtime base: that base's layers, by digest, are the first of the image's
layers() { docker image inspect --format '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1"; }
base_layers=$(layers "$runtime_image")
[[ $(layers "$image" | head -n "$(wc -l <<<"$base_layers")") == "$base_layers" ]] \
  || die "$image is not built on $runtime_image: that image's layers are not the first of its own"
# the Dockerfile of the repository is the one the image was built from
here=$(sha256sum "$HERE/../Dockerfile" | cut -d' ' -f1)
[[ $here == "$dockerfile" ]] || die "the Dockerfile (sha256 $here) is not the one $image was built from ($dockerfile): make dist-image again"

created=$(docker image inspect --format '{{.Created}}' "$image")
docker_version=$(docker version --format '{{.Server.Version}}')
jq -n --arg rev "$revision" --arg src "$source_url" --arg version "$version" --arg dockerfile "$dockerfile" \
  --arg build "$build_image" --arg runtime "$runtime_image" --arg created "$created" \
  --arg builder "${SYNCGC_BUILDER_ID:-urn:syncgc:make-dist-image:$(hostname)}" --arg docker "$docker_version" '
  def image($name; $ref): {name: $name, uri: $ref, digest: {sha256: ($ref | sub("^.*sha256:"; ""))}};
  {
    buildDefinition: {
      buildType: "\($src)/blob/\($rev)/Makefile#dist-image",
      externalParameters: {
        source: {uri: "git+\($src)", revision: $rev},
        dockerfile: "Dockerfile",
        buildArgs: {BUILD_IMAGE: $build, RUNTIME_IMAGE: $runtime, VERSION: $version, REVISION: $rev,
                    SOURCE: $src, DOCKERFILE_SHA256: $dockerfile}
      },
      resolvedDependencies: [
        {uri: "git+\($src)@\($rev)", digest: {gitCommit: $rev}},
        {name: "Dockerfile", uri: "git+\($src)@\($rev)#Dockerfile", digest: {sha256: $dockerfile}},
        image("BUILD_IMAGE"; $build),
        image("RUNTIME_IMAGE"; $runtime)
      ]
    },
    runDetails: {
      builder: {id: $builder, version: {docker: $docker}},
      metadata: {finishedOn: $created}
    }
  }'
