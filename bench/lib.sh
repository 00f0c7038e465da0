# bench/lib.sh: what every bench script shares; sourced, not run. Makes WORK (a scratch folder) and PIDS (what the
# script starts), and on exit stops every process in PIDS and removes WORK (kept, and named, with KEEP=1).
WORK=$(mktemp -d)
PIDS=()

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

log() { printf '\n== %s\n' "$*" >&2; }

# install_debian PACKAGE...: installs Debian packages, updating the package lists once when that is what it takes
install_debian() {
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -q "$@" >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "$@" >/dev/null; }
}

# free_port: a port nothing listens on at 127.0.0.1 now
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_port PORT [SECONDS]: until something listens on 127.0.0.1:PORT, SECONDS (60) at most, else the script ends
wait_port() {
  for _ in $(seq 1 $(( ${2:-60} * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listened on 127.0.0.1:$1 within ${2:-60}s" >&2
  exit 1
}
