#!/usr/bin/env bash
# Stops the one-node cluster of up.sh (`make cluster-down`) and puts the host back as it found it:
# containers killed, mounts under the state folder unmounted, the network namespaces, packet filter
# rules and chains it added removed, cgroups it made removed, the bridge deleted and the kernel
# settings restored. Safe to run when nothing is running.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
quiet=${1:-}
[ -d "$state" ] || exit 0
started_at=$(date +%s)

# The kubelet first, so it restarts nothing; then every container, while containerd still runs.
alive kubelet && stop_pid "$(pid_of kubelet)" kubelet
if alive containerd; then
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -a -s SIGKILL "$id" >/dev/null 2>&1; done
  for _ in $(seq 1 50); do
    [ -z "$(ctr_ tasks ls -q 2>/dev/null | while read -r id; do ctr_ tasks ls 2>/dev/null | grep -w "$id" | grep -v STOPPED; done)" ] && break
    sleep 0.2
  done
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks rm -f "$id" >/dev/null 2>&1; done
fi
# Containers runc still knows (containerd died earlier, say).
if [ -d "$state/runc" ]; then
  for r in "$state"/runc/*; do
    [ -d "$r" ] || continue
    for id in $(runc --root "$r" list -q 2>/dev/null); do
      runc --root "$r" kill -a "$id" KILL 2>/dev/null
      runc --root "$r" delete -f "$id" 2>/dev/null
    done
  done
fi
for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  c=${COMPONENTS[$i]}
  p=$(pid_of "$c")
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && stop_pid "$p" "$c"
  rm -f "$pids/$c.pid"
done
"$state/bin/kube-proxy" --cleanup >/dev/null 2>&1 || true
for p in $(pgrep -f -- "$state/" 2>/dev/null); do
  [ "$p" = $$ ] && continue
  log "stopping stray process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"
  stop_pid "$p" stray
done

# Mounts under the state folder (volumes, overlay snapshots, sandbox shm), deepest first.
findmnt -rn -o TARGET | grep -F "$state/" | sort -r | while read -r m; do
  umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
done
# Pod network namespaces made since up.sh started.
if [ -f "$state/netns.before" ]; then
  for n in $(ls /run/netns 2>/dev/null); do
    grep -qxF "$n" "$state/netns.before" || ip netns delete "$n" 2>/dev/null
  done
  rm -f "$state/netns.before"
fi
# Packet filter rules and chains added since up.sh started (kubelet, kube-proxy, the CNI plugins).
for t in iptables ip6tables; do
  before="$state/$t.before"
  [ -f "$before" ] || continue
  now=$("$t-save")
  for table in $(printf '%s\n' "$now" | sed -n 's/^\*//p'); do
    section() { printf '%s\n' "$1" | sed -n "/^\*$table\$/,/^COMMIT\$/p"; }
    old=$(section "$(cat "$before")")
    new=$(section "$now")
    printf '%s\n' "$new" | grep '^-A ' | grep -vxF -f <(printf '%s\n' "$old" | grep '^-A ') |
      while read -r rule; do eval "$t -w -t $table -D ${rule#-A }" 2>/dev/null; done
    for chain in $(printf '%s\n' "$new" | sed -n 's/^:\([^ ]*\) .*/\1/p'); do
      printf '%s\n' "$old" | grep -q "^:$chain " && continue
      "$t" -w -t "$table" -F "$chain" 2>/dev/null
    done
    for chain in $(printf '%s\n' "$new" | sed -n 's/^:\([^ ]*\) .*/\1/p'); do
      printf '%s\n' "$old" | grep -q "^:$chain " && continue
      "$t" -w -t "$table" -X "$chain" 2>/dev/null
    done
  done
  rm -f "$before"
done
# The kubelet's links to container logs, and the folders it made for them.
for l in /var/log/containers/*.log; do
  [ -L "$l" ] && [[ "$(readlink "$l")" == "$state/"* ]] && rm -f "$l"
done
if [ -f "$state/logdirs.before" ]; then
  for d in /var/log/containers /var/log/pods; do
    grep -qxF "$d" "$state/logdirs.before" || rmdir "$d" 2>/dev/null
  done
  rm -f "$state/logdirs.before"
fi
# The cgroups the kubelet made for Pods.
for d in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
  [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
done
ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
if [ -f "$state/sysctls" ]; then
  while IFS='=' read -r k v; do sysctl -qw "$k=$v" 2>/dev/null; done <"$state/sysctls"
  rm -f "$state/sysctls"
fi
# The cluster's data: a next start begins empty (the PKI and the images' build cache are kept).
rm -rf "$state/etcd" "$state/kubelet" "$state/pod-logs" "$state/containerd" "$state/runc" "$state/cni" "$state/containerd.sock"
[ "$quiet" = --quiet ] || log "stopped and cleaned up in $(($(date +%s) - started_at))s"
exit 0
