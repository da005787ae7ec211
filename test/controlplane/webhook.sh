#!/usr/bin/env bash
# Stops, starts or restarts only the admission webhook of the running local environment (after a
# change to webhook/ or src/, or to test what happens while it is down).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

webhook_down() {
  unsupervise webhook
}

webhook_up() {
  build_dist
  start_webhook
  for _ in $(seq 1 300); do webhook_ready && { register_webhook; return 0; }; sleep 0.2; done
  die "the webhook did not become ready in 60s; see $logs/webhook.log"
}

case "${1:-}" in
  stop) webhook_down ;;
  start) webhook_up ;;
  restart) webhook_down; webhook_up ;;
  *) echo "usage: $0 stop|start|restart" >&2; exit 2 ;;
esac
