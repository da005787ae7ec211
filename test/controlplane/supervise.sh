#!/usr/bin/env bash
# Keeps one component of the local environment running, as a Deployment would in a cluster: when
# it exits it is started again (after 1 s, doubling up to 10 s while it keeps exiting within 30 s),
# and its log says so. $pids/NAME.pid names the running process; a file $pids/NAME.stop ends the
# supervision (webhook.sh stop, down.sh, a test that wants it to stay down).
# Usage: supervise.sh NAME COMMAND... (run in the component's working folder and environment)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
name=$1; shift
echo $$ > "$pids/$name.supervisor"
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 0' TERM INT
delay=1
while :; do
  began=$(date +%s)
  "$@" >>"$logs/$name.log" 2>&1 </dev/null &
  child=$!
  echo "$child" > "$pids/$name.pid"
  wait "$child"
  code=$?
  [ -f "$pids/$name.stop" ] && exit 0
  [ $(( $(date +%s) - began )) -ge 30 ] && delay=1
  printf '%s supervisor: %s exited with code %s; starting it again in %ss\n' \
    "$(date -u +%FT%TZ)" "$name" "$code" "$delay" >>"$logs/$name.log"
  sleep "$delay"
  [ -f "$pids/$name.stop" ] && exit 0
  delay=$(( delay * 2 > 10 ? 10 : delay * 2 ))
done
