#!/usr/bin/env bash
# Fetches the pinned bubblewrap (the step sandbox of runtimed) into the cache outside the repository
# and prints the path of its bwrap binary. It comes from Debian's package, downloaded with apt-get
# (no root needed) and checked against the pin below before it is used; a machine without apt-get
# can point KRT_BWRAP at a bwrap of its own.
set -euo pipefail
if [[ -n "${KRT_BWRAP:-}" ]]; then
  echo "$KRT_BWRAP"
  exit 0
fi
version=0.8.0-2+deb12u1
# sha256 of bubblewrap_<version>_amd64.deb.
sha256=3cc9134a3286ad01a323dcd924ba123eb634cefaeec82d774257e06308aeaadb
cache=${KRT_BWRAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kruntimes/bwrap}
dir="$cache/$version"
if [[ -x "$dir/bwrap" ]]; then
  echo "$dir/bwrap"
  exit 0
fi
command -v apt-get >/dev/null || {
  echo "fetch-bwrap: apt-get is missing: install bubblewrap and set KRT_BWRAP to its bwrap" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-bwrap: fetching bubblewrap $version (first time on this machine)" >&2
download() { (cd "$tmp" && apt-get download -q "bubblewrap=$version" >"$tmp/apt.log" 2>&1); }
# A machine whose package lists are missing or old gets them once (as root), then tries again.
if ! download; then
  if [[ $(id -u) == 0 ]] && apt-get update -q >"$tmp/update.log" 2>&1 && download; then
    :
  else
    cat "$tmp/apt.log" >&2
    exit 1
  fi
fi
deb=$(ls "$tmp"/bubblewrap_*.deb)
got=$(sha256sum "$deb" | cut -d' ' -f1)
if [[ "$got" != "$sha256" ]]; then
  echo "fetch-bwrap: checksum mismatch for bubblewrap $version: got $got" >&2
  exit 1
fi
dpkg-deb -x "$deb" "$tmp/x"
mkdir -p "$dir.partial"
cp "$tmp/x/usr/bin/bwrap" "$dir.partial/bwrap"
"$dir.partial/bwrap" --version >/dev/null
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "$dir/bwrap"
