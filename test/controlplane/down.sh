#!/usr/bin/env bash
# Stops everything up.sh started, by process id, and then anything still running from this
# checkout's state folder, so no stray process is left.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
quiet=${1:-}

stop_pid() { # PID NAME
  local p=$1
  kill -TERM "$p" 2>/dev/null || return 0
  for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  log "$2 ($p) did not stop in 10s; killing it"
  kill -KILL "$p" 2>/dev/null
}

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
