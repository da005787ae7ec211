# Helpers the local control plane's and the one-node cluster's scripts share. Sourced after their
# lib.sh (which defines `log`), not run.

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
sign() { # NAME SUBJECT EXTENSIONS
  [ -f "$1.crt" ] && return 0
  key "$1"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$3" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -sha256 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
