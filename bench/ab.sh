#!/usr/bin/env bash
# Interleaved A/B of two revisions of mcp-relay: bench/ab.sh REV_A REV_B
#
# Builds each revision (git worktrees, tests skipped), starts the bench's fast upstream on 127.0.0.1, then PAIRS times
# starts A, warms it for WARM, measures tools/call req/s and p50/p99 with wrk for DURATION at concurrency C, stops
# it, and does the same for B, so that both meet the same machine state. Besides req/s and latency it reports the
# relay process's own CPU time per request (user + system, from /proc), which the other processes on the machine
# disturb far less than throughput. Prints one row per run and the B/A ratios of the means; nothing is asserted. The relays run their default configuration (security none, access log on), as
# bench/run.sh runs them. Knobs (environment): PAIRS (3), WARM (25s), DURATION (15s), C (16).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
A=${1:?usage: bench/ab.sh REV_A REV_B}
B=${2:?usage: bench/ab.sh REV_A REV_B}
PAIRS=${PAIRS:-3}
WARM=${WARM:-25s}
DURATION=${DURATION:-15s}
C=${C:-16}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for rev in a b; do git -C "$ROOT" worktree remove --force "$WORK/$rev" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
command -v wrk >/dev/null || { echo "bench/ab.sh needs wrk (Debian: apt-get install wrk)" >&2; exit 1; }

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_port() {
  for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listened on 127.0.0.1:$1" >&2; exit 1
}

for rev in a b; do
  commit=$([ $rev = a ] && echo "$A" || echo "$B")
  git -C "$ROOT" worktree add -q --detach "$WORK/$rev" "$commit"
  (cd "$WORK/$rev" && "$ROOT/mvnw" -q -B package -DskipTests -pl relay -am -Dmaven.repo.local="${HOME}/.m2/repository" >/dev/null)
  cp "$(ls "$WORK/$rev"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)" "$WORK/$rev.jar"
done

UPSTREAM_PORT=$(free_port)
PORT=$UPSTREAM_PORT node bench/fast-upstream.mjs 2>"$WORK/upstream.log" &
PIDS+=($!)
wait_port "$UPSTREAM_PORT"

run() {
  local rev=$1 port; port=$(free_port)
  java -jar "$WORK/$rev.jar" --server.port="$port" --server.address=127.0.0.1 \
    --mcp-relay.servers.fast.url="http://127.0.0.1:$UPSTREAM_PORT/mcp" --mcp-relay.security.mode=none \
    --logging.level.root=WARN --logging.level.mcp.relay.access=INFO >"$WORK/relay-$rev.log" 2>&1 &
  local pid=$!
  wait_port "$port"
  local url="http://127.0.0.1:$port/mcp/fast"
  wrk -t2 -c"$C" -d"$WARM" -s bench/tools-call.lua "$url" >/dev/null 2>&1
  local before; before=$(cpu_ticks "$pid")
  wrk -t2 -c"$C" -d"$DURATION" --latency -s bench/tools-call.lua "$url" >"$WORK/wrk.out" 2>&1
  local after; after=$(cpu_ticks "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  awk -v rev="$rev" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" \
    '/requests in/ {n=$1} /^Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2}
     END {printf "%s %s %s %s %.1f\n", rev, rps, p50, p99, ticks * 1000000 / hz / n}' "$WORK/wrk.out"
}

# user + system CPU ticks of a process so far
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

printf '| pair | A req/s | A p50 | A p99 | A CPU µs/req | B req/s | B p50 | B p99 | B CPU µs/req | B / A req/s | B / A CPU |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
sum_a=0; sum_b=0; cpu_a=0; cpu_b=0
for pair in $(seq 1 "$PAIRS"); do
  read -r _ ra la pa ca < <(run a)
  read -r _ rb lb pb cb < <(run b)
  sum_a=$(awk -v s="$sum_a" -v r="$ra" 'BEGIN {print s + r}'); cpu_a=$(awk -v s="$cpu_a" -v r="$ca" 'BEGIN {print s + r}')
  sum_b=$(awk -v s="$sum_b" -v r="$rb" 'BEGIN {print s + r}'); cpu_b=$(awk -v s="$cpu_b" -v r="$cb" 'BEGIN {print s + r}')
  printf '| %s | %.0f | %s | %s | %s | %.0f | %s | %s | %s | %.2f | %.2f |\n' "$pair" "$ra" "$la" "$pa" "$ca" "$rb" "$lb" \
    "$pb" "$cb" "$(awk -v a="$ra" -v b="$rb" 'BEGIN {print b / a}')" "$(awk -v a="$ca" -v b="$cb" 'BEGIN {print b / a}')"
done
awk -v a="$sum_a" -v b="$sum_b" -v ca="$cpu_a" -v cb="$cpu_b" -v n="$PAIRS" \
  'BEGIN {printf "| mean | %.0f | | | %.1f | %.0f | | | %.1f | **%.2f** | **%.2f** |\n", a / n, ca / n, b / n, cb / n, b / a, cb / ca}'
