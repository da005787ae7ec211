#!/usr/bin/env bash
# Makes the local base image when no registry can be reached: a Debian minbase root file system
# (debootstrap) with the pinned Node.js binary (tools/fetch-node.sh) and the step sandbox
# (bubblewrap), imported into podman as localhost/kruntimes-base:<debian>-node<version>. Cached: the
# root file system is kept as a tarball outside the repository and the image is made only when
# missing. Prints the image name. Users with a registry build on the official Node.js image instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=bookworm
node_bin=$("$root/tools/fetch-node.sh")
version=$("$node_bin/node" --version)
version=${version#v}
name="localhost/kruntimes-base:$SUITE-node$version"
cache=${KRT_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kruntimes/image}
tarball="$cache/rootfs-$SUITE-node$version.tar"
log() { printf 'image: %s\n' "$*" >&2; }

if podman image exists "$name" 2>/dev/null; then
  echo "$name"
  exit 0
fi
if [ ! -f "$tarball" ]; then
  command -v debootstrap >/dev/null || {
    log "debootstrap is needed to make the local base image (apt-get install debootstrap)"
    exit 1
  }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/rootfs.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  log "making the base root file system ($SUITE minbase; the first time takes a few minutes)"
  start=$(date +%s)
  debootstrap --variant=minbase --include=bubblewrap,ca-certificates,tini "$SUITE" "$tmp/fs" >"$tmp/log" 2>&1 || {
    tail -20 "$tmp/log" >&2
    exit 1
  }
  install -m 0755 "$node_bin/node" "$tmp/fs/usr/local/bin/node"
  # What an image needs of a root file system, not what debootstrap leaves for a machine.
  rm -rf "$tmp/fs/var/cache/apt/archives/"*.deb "$tmp/fs/var/lib/apt/lists/"* "$tmp/fs/usr/share/doc" \
    "$tmp/fs/usr/share/man" "$tmp/fs/usr/share/locale" "$tmp/fs/var/log/"*
  tar -C "$tmp/fs" --numeric-owner -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
  log "base root file system made in $(($(date +%s) - start))s"
fi
podman import --quiet \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' "$tarball" "$name" >/dev/null
echo "$name"
