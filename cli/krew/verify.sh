#!/usr/bin/env bash
# Checks a krew manifest against its archive, as krew would before installing it: the sha256 in the
# manifest is the archive's, the uri names this archive, the version is the archive's, and every
# file the manifest installs (and LICENSE) is in the archive, its `bin` and completion executable
# (kubectl_complete-*) executable.
#
#   cli/krew/verify.sh dist/syncgc.yaml dist/kubectl-syncgc-vX.Y.Z.tar.gz
#
# Exits 0 with one line when it holds, 1 naming each mismatch otherwise.
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: $0 MANIFEST ARCHIVE" >&2; exit 2; }
manifest=$1
archive=$2
errors=()
field() { sed -n "s|^ *$1: *\"\{0,1\}\([^\"]*\)\"\{0,1\} *$|\1|p" "$manifest" | head -1; }

want=$(field sha256)
have=$(sha256sum "$archive" | cut -d' ' -f1)
[[ $want == "$have" ]] || errors+=("sha256 in $manifest is '$want', the archive's is $have")

uri=$(field uri)
[[ $(basename "$uri") == "$(basename "$archive")" ]] || errors+=("uri $uri does not name $(basename "$archive")")
version=$(field version)
[[ $(basename "$archive") == *"-$version.tar.gz" ]] || errors+=("version $version is not the archive's ($(basename "$archive"))")

listing=$(tar -tvzf "$archive")
names=$(tar -tzf "$archive" | sed 's|^\./||')
bin=$(field bin)
for f in $(sed -n 's|^ *- from: *||p' "$manifest") LICENSE; do
  grep -qx "$f" <<<"$names" || errors+=("$f is not in the archive")
done
grep -E "^-..x.* $bin$" <<<"$listing" >/dev/null || errors+=("bin $bin is not an executable file of the archive")
# kubectl runs the completion executable itself (kubectl_complete-<plugin> on PATH)
for f in $(sed -n 's|^ *- from: *\(kubectl_complete-.*\)$|\1|p' "$manifest"); do
  grep -E "^-..x.* $f$" <<<"$listing" >/dev/null || errors+=("$f is not an executable file of the archive")
done
grep -q "Apache License" <(tar -xzOf "$archive" LICENSE 2>/dev/null) || errors+=("LICENSE in the archive is not the Apache License")

if ((${#errors[@]})); then
  printf 'krew manifest check failed: %s\n' "${errors[@]}" >&2
  exit 1
fi
echo "krew manifest $manifest matches $(basename "$archive") (sha256 $have)"
