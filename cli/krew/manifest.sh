#!/usr/bin/env bash
# Writes the krew manifest of a release to stdout: cli/krew/syncgc.yaml with the release's version,
# the archive's download URI and its sha256, computed from the archive itself.
#
#   cli/krew/manifest.sh VERSION ARCHIVE > dist/syncgc.yaml
#
# KREW_URI_BASE: where the archive is published (default: the GitHub release of tag vVERSION).
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: $0 VERSION ARCHIVE" >&2; exit 2; }
version=$1
archive=$2
[[ -f $archive ]] || { echo "error: no archive $archive (make dist builds it)" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
base=${KREW_URI_BASE:-https://github.com/syncgc/syncgc/releases/download/v$version}
sha=$(sha256sum "$archive" | cut -d' ' -f1)
uri="$base/$(basename "$archive")"
# the template's comment says it is a template; the written manifest says where it came from
sed -e '1,/^apiVersion:/{/^#/d}' \
    -e "s|^  version: .*|  version: v$version|" \
    -e "s|^    uri: .*|    uri: $uri|" \
    -e "s|^    sha256: .*|    sha256: \"$sha\"|" \
    "$here/syncgc.yaml" | { echo "# krew manifest of syncgc v$version, written by cli/krew/manifest.sh from $(basename "$archive")"; cat; }
