#!/usr/bin/env bash
# Builds the image with podman (no daemon): IMAGE (default localhost/kruntimes-ts:<version>) from
# the Containerfile, on BASE_IMAGE, or on the local base (tools/image/base.sh) when BASE_IMAGE is
# not given. Prints the image name on stdout; the time it took and its size on stderr.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/tools/image/containers.conf}
log() { printf 'image: %s\n' "$*" >&2; }
command -v podman >/dev/null && command -v debootstrap >/dev/null || "$root/tools/host-packages.sh"
version=$(node -p 'require("./package.json").version')
revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
image=${IMAGE:-localhost/kruntimes-ts:$version}
base=${BASE_IMAGE:-$(tools/image/base.sh)}
start=$(date +%s)
podman build --quiet --file Containerfile --tag "$image" \
  --build-arg "BASE_IMAGE=$base" \
  --build-arg "VERSION=$version" \
  --build-arg "REVISION=$revision" \
  --build-arg "SOURCE=$(git remote get-url origin 2>/dev/null || echo unknown)" \
  . >/dev/null
size=$(podman image inspect --format '{{.Size}}' "$image")
log "built $image on $base in $(($(date +%s) - start))s, $((size / 1024 / 1024)) MiB"
echo "$image"
