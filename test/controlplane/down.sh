#!/usr/bin/env bash
# Stops everything up.sh started, by process id, and then anything still running from this
# checkout's state folder, so no stray process is left.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
quiet=${1:-}

stopped=0
# Supervisors first, or they would start again what is stopped below.
for c in "${COMPONENTS[@]}"; do
  [ -f "$pids/$c.supervisor" ] || continue
  touch "$pids/$c.stop"
  kill -TERM "$(cat "$pids/$c.supervisor")" 2>/dev/null
  rm -f "$pids/$c.supervisor"
done
# Reverse order: clients before the servers they talk to.
for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  c=${COMPONENTS[$i]}
  p=$(pid_of "$c")
  [ -n "$p" ] || continue
  if kill -0 "$p" 2>/dev/null; then stop_pid "$p" "$c"; stopped=$((stopped + 1)); fi
  rm -f "$pids/$c.pid"
done
for p in $(pgrep -f -- "$state/" 2>/dev/null); do
  [ "$p" = $$ ] && continue
  log "stopping stray process $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"
  stop_pid "$p" stray
  stopped=$((stopped + 1))
done
[ "$quiet" = --quiet ] || log "stopped $stopped processes"
exit 0
