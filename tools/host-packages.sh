#!/usr/bin/env bash
# Installs what the one-node cluster and the image build need from the distribution, when missing:
# podman (images without a daemon), runc and containerd (the node's runtime), debootstrap (the local
# base image), the CNI plugins and iptables. Debian's packages; needs root.
set -euo pipefail
log() { printf 'host-packages: %s\n' "$*" >&2; }
die() { printf 'host-packages: error: %s\n' "$*" >&2; exit 1; }
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have podman || need+=(podman)
have buildah || need+=(buildah)
have runc || need+=(runc)
have containerd || need+=(containerd)
have debootstrap || need+=(debootstrap)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
have iptables || need+=(iptables)
have conntrack || need+=(conntrack)
[ ${#need[@]} -eq 0 ] && exit 0
[ "$(id -u)" = 0 ] || die "missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root"
log "installing ${need[*]} (apt-get)"
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
log "installed in $(($(date +%s) - start))s"
