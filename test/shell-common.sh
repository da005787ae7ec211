# Helpers the local control plane's and the one-node cluster's scripts share. Sourced by their
# lib.sh, not run; the callers set $who (the prefix of their messages) and the folders $state,
# $pki, $logs and $pids.

log() { printf '%s: %s\n' "$who" "$*" >&2; }
die() { printf '%s: error: %s\n' "$who" "$*" >&2; exit 1; }

# The pinned Node.js and step sandbox, also when a script runs outside make (the machine's own node
# may be too old for the components, which then refuse to start).
node_bin=$("$root/tools/fetch-node.sh") || die "could not fetch the pinned Node.js (tools/fetch-node.sh)"
[ "${PATH%%:*}" = "$node_bin" ] || export PATH="$node_bin:$PATH"
if [ -z "${KRT_BWRAP:-}" ]; then
  KRT_BWRAP=$("$root/tools/fetch-bwrap.sh") || die "could not fetch bubblewrap (tools/fetch-bwrap.sh)"
  export KRT_BWRAP
fi
pid_of() { cat "$pids/$1.pid" 2>/dev/null || true; }
alive() { local p; p=$(pid_of "$1"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

# Stops a process: TERM, then KILL after 10 s.
stop_pid() { # PID NAME
  local p=$1
  kill -TERM "$p" 2>/dev/null || return 0
  for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  log "$2 ($p) did not stop in 10s; killing it"
  kill -KILL "$p" 2>/dev/null
}

# An EC key, and a certificate signed by ca.crt/ca.key of the current folder, each made once (an
# existing certificate is kept).
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1.key" 2>/dev/null; }
ca() { # SUBJECT
  [ -f ca.crt ] && return 0
  key ca
  openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "$1" -out ca.crt 2>/dev/null
}
sign() { # NAME SUBJECT EXTENSIONS
  [ -f "$1.crt" ] && return 0
  key "$1"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -sha256 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

# Starts a process in a session of its own: its output in $logs/NAME.log, its pid in $pids/NAME.pid.
start() { # NAME COMMAND...
  local name=$1
  shift
  setsid "$@" >"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$pids/$name.pid"
}

# Runs COMMAND five times a second until it succeeds; gives up after SECONDS.
wait_for() { # WHAT SECONDS COMMAND...
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "$what did not become ready in ${seconds}s; see $logs"
}

# A kubeconfig for SERVER that authenticates with $pki/USER.crt, the CA $pki/ca.crt, and optionally
# impersonates another user (and a Pod name, as a service-account token bound to a Pod would).
kubeconfig() { # FILE NAME SERVER USER [IMPERSONATED-USER [POD]]
  cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: $2
  cluster:
    server: $3
    certificate-authority-data: $(base64 -w0 <"$pki/ca.crt")
users:
- name: $4
  user:
    client-certificate-data: $(base64 -w0 <"$pki/$4.crt")
    client-key-data: $(base64 -w0 <"$pki/$4.key")${5:+
    as: $5}${6:+
    as-user-extra: { authentication.kubernetes.io/pod-name: [$6] \}}
contexts:
- name: $2
  context: { cluster: $2, user: $4, namespace: default }
current-context: $2
YAML
  chmod 600 "$1"
}
