# bench/lib.sh: what every bench script shares; sourced, not run. Makes WORK (a scratch folder) and PIDS (what the
# script starts), and on exit stops every process in PIDS and removes WORK.
WORK=$(mktemp -d)
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '\n== %s\n' "$*" >&2; }

# install_debian PACKAGE...: installs Debian packages, updating the package lists once when that is what it takes
install_debian() {
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -q "$@" >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "$@" >/dev/null; }
}

# wait_port PORT: until something listens on 127.0.0.1:PORT, 60 s at most
wait_port() {
  for _ in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listened on 127.0.0.1:$1 within 60s" >&2
  exit 1
}
