#!/usr/bin/env bash
# bench/sessions.sh: the session-heavy bench: what sessions kept in Redis cost, with one relay and with three.
#
# Two member servers (bench/delayed-member.mjs with no delay, 20 tools each) behind the relay's packaged jar (built if
# missing), security mode none, access log off, `sessions.store: redis`, two virtual servers over the two members:
# `both` and `found` (tool search on). bench/session-driver.mjs runs CONCURRENCY sessions at once, back to back (per
# session: initialize, initialized, tools/list and two calls on `both`, then initialize, tools/list and a search on
# `found`, each ended with DELETE: 10 exchanges), every exchange sent to the next relay in turn, so that with three
# relays a session's requests land on different relays and the session lives only in Redis.
# For each topology (standalone: one redis-server; cluster: three masters made with `redis-cli --cluster create`) and
# each number of relays (1, 3): a warm-up (WARMUP_S, unmeasured), then ROUNDS runs of DURATION_S; around each run it
# reads each relay's CPU time (utime + stime, /proc/<pid>/stat) and each Redis node's `total_commands_processed` and
# `used_cpu_user + used_cpu_sys` (INFO). Per run: exchanges/s, p50 and p99 latency, relay CPU per exchange (all relays
# together), Redis commands per exchange (each one round trip: the relay does not pipeline) and Redis CPU per exchange
# (all nodes together); the report gives each figure's median over the rounds.
# Writes bench/results/<date>-<time>-<host>-sessions.md. Installs redis-server/redis-tools (Debian) if missing.
# Knobs (environment): TOPOLOGIES ("standalone cluster"), RELAY_COUNTS ("1 3"), CONCURRENCY (8), WARMUP_S (20),
# DURATION_S (20), ROUNDS (3), HEAP (512m per relay), JAR (the relay's jar; default relay/target's, built if missing).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
read -r -a TOPOLOGIES <<<"${TOPOLOGIES:-standalone cluster}"
read -r -a RELAY_COUNTS <<<"${RELAY_COUNTS:-1 3}"
CONCURRENCY=${CONCURRENCY:-8}
WARMUP_S=${WARMUP_S:-20}
DURATION_S=${DURATION_S:-20}
ROUNDS=${ROUNDS:-3}
HEAP=${HEAP:-512m}
TICKS=$(getconf CLK_TCK)
# shellcheck source=bench/lib.sh
. bench/lib.sh

command -v redis-server >/dev/null && command -v redis-cli >/dev/null || install_debian redis-server redis-tools

JAR=${JAR:-$(ls relay/target/mcp-relay-*.jar 2>/dev/null | grep -v -e original -e plain | head -1 || true)}
if [ -z "$JAR" ]; then
  ./mvnw -B -q package -DskipTests -pl relay -am
  JAR=$(ls relay/target/mcp-relay-*.jar | grep -v -e original -e plain | head -1)
fi

# cpu_ticks PID...: utime + stime of the processes together, in clock ticks
cpu_ticks() {
  local pid total=0
  for pid in "$@"; do total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }'))); done
  echo "$total"
}

# redis_totals PORT...: "<commands processed> <CPU seconds>" summed over the Redis nodes on those ports
redis_totals() {
  local port
  for port in "$@"; do redis-cli -p "$port" INFO; done | tr -d '\r' | awk -F: '
    $1 == "total_commands_processed" { commands += $2 }
    $1 == "used_cpu_user" || $1 == "used_cpu_sys" { cpu += $2 }
    END { printf "%d %.6f\n", commands, cpu }'
}

MEMBER_ARGS=()
for member in m1 m2; do
  port=$(free_port)
  PORT=$port DELAY_MS=0 TOOLS=20 node bench/delayed-member.mjs & PIDS+=($!)
  wait_port "$port"
  MEMBER_ARGS+=("--mcp-relay.servers.$member.url=http://127.0.0.1:$port/mcp")
done

# cluster_port: a free port whose cluster bus port (10000 above it) fits in 65535 and is free too
cluster_port() {
  python3 -c '
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    if port <= 55535:
        b = socket.socket()
        try:
            b.bind(("127.0.0.1", port + 10000)); b.close(); s.close(); print(port); break
        except OSError:
            pass
    s.close()'
}

# start_redis TOPOLOGY: starts it; sets REDIS_PORTS and REDIS_ARGS (the relays' spring.data.redis.* arguments)
start_redis() {
  REDIS_PORTS=()
  REDIS_PIDS=()
  local nodes=() port dir
  local count=1; [ "$1" = cluster ] && count=3
  for _ in $(seq 1 "$count"); do
    if [ "$1" = cluster ]; then port=$(cluster_port); else port=$(free_port); fi
    dir="$WORK/redis-$port"
    mkdir -p "$dir"
    if [ "$1" = cluster ]; then
      redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly no --cluster-enabled yes \
        --cluster-config-file "$dir/nodes.conf" > "$dir/log" 2>&1 &
    else
      redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly no > "$dir/log" 2>&1 &
    fi
    REDIS_PIDS+=($!)
    PIDS+=($!)
    wait_port "$port"
    REDIS_PORTS+=("$port")
    nodes+=("127.0.0.1:$port")
  done
  if [ "$1" = cluster ]; then
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes > "$WORK/cluster-create.log" 2>&1
    for _ in $(seq 1 100); do
      redis-cli -p "${REDIS_PORTS[0]}" CLUSTER INFO | grep -q 'cluster_state:ok' && break
      sleep 0.1
    done
    REDIS_ARGS=("--spring.data.redis.cluster.nodes=$(IFS=,; echo "${nodes[*]}")")
  else
    REDIS_ARGS=("--spring.data.redis.host=127.0.0.1" "--spring.data.redis.port=${REDIS_PORTS[0]}")
  fi
}

stop() {
  local pid
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

# start_relays COUNT: sets RELAY_PIDS and RELAY_URLS
start_relays() {
  RELAY_PIDS=()
  local urls=() port
  for n in $(seq 1 "$1"); do
    port=$(free_port)
    java -Xms"$HEAP" -Xmx"$HEAP" -jar "$JAR" --server.port="$port" --server.address=127.0.0.1 \
      --mcp-relay.security.mode=none --mcp-relay.access-log.enabled=false \
      --mcp-relay.sessions.store=redis --mcp-relay.sessions.secret=session-bench-secret-of-at-least-32-bytes \
      "${MEMBER_ARGS[@]}" "${REDIS_ARGS[@]}" \
      --mcp-relay.virtual-servers.both.members=m1,m2 --mcp-relay.virtual-servers.found.members=m1,m2 \
      --mcp-relay.virtual-servers.found.tool-search.enabled=true > "$WORK/relay-$n.log" 2>&1 &
    RELAY_PIDS+=($!)
    PIDS+=($!)
    urls+=("http://127.0.0.1:$port")
  done
  for url in "${urls[@]}"; do wait_port "${url##*:}" 120; done
  RELAY_URLS=$(IFS=,; echo "${urls[*]}")
}

# drive SECONDS OUT: the driver's traffic for SECONDS against every relay, its result in OUT
drive() {
  RELAYS=$RELAY_URLS DURATION_S=$1 CONCURRENCY=$CONCURRENCY OUT=$2 node bench/session-driver.mjs
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ROWS=()
for topology in "${TOPOLOGIES[@]}"; do
  for relays in "${RELAY_COUNTS[@]}"; do
    log "$topology Redis, $relays relay(s)"
    start_redis "$topology"
    start_relays "$relays"
    drive "$WARMUP_S" "$WORK/warmup.json"
    : > "$WORK/rounds"
    for round in $(seq 1 "$ROUNDS"); do
      cpu_before=$(cpu_ticks "${RELAY_PIDS[@]}")
      read -r commands_before redis_cpu_before < <(redis_totals "${REDIS_PORTS[@]}")
      drive "$DURATION_S" "$WORK/round-$round.json"
      cpu_after=$(cpu_ticks "${RELAY_PIDS[@]}")
      read -r commands_after redis_cpu_after < <(redis_totals "${REDIS_PORTS[@]}")
      node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const [ticks, hz, commands, redisCpu] = process.argv.slice(2).map(Number);
        const e = Math.max(1, r.exchanges);
        console.log([r.exchanges / r.seconds, r.p50, r.p99, ticks / hz * 1e6 / e, commands / e, redisCpu * 1e6 / e,
          r.failures, r.exchanges].map((v) => v.toFixed(2)).join(" "));
        if (r.failures) console.error("failures:", JSON.stringify(r.samples));
      ' "$WORK/round-$round.json" $((cpu_after - cpu_before)) "$TICKS" $((commands_after - commands_before)) \
        "$(awk -v a="$redis_cpu_after" -v b="$redis_cpu_before" 'BEGIN { print a - b }')" >> "$WORK/rounds"
    done
    cat "$WORK/rounds" >&2
    row="| $topology | $relays"
    for column in 1 2 3 4 5 6 7; do
      row+=" | $(awk -v c="$column" '{ print $c }' "$WORK/rounds" | median)"
    done
    ROWS+=("$row |")
    stop "${RELAY_PIDS[@]}"
    stop "${REDIS_PIDS[@]}"
  done
done

mkdir -p bench/results
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M)-$(hostname -s)-sessions.md"
{
  echo "# Session-heavy bench ($(date -u +%Y-%m-%d\ %H:%M) UTC, $(hostname -s), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "Sessions on two virtual servers (\`both\`: initialize, initialized, tools/list, two calls; \`found\`, tool search on:"
  echo "initialize, tools/list, a search; each ended by DELETE), $CONCURRENCY at once, each exchange on the next relay in turn;"
  echo "\`$(basename "$JAR")\`, mode none, access log off, \`sessions.store: redis\`, -Xmx$HEAP per relay; two members"
  echo "answering at once (bench/delayed-member.mjs). Medians of $ROUNDS runs of ${DURATION_S}s after ${WARMUP_S}s of warm-up."
  echo "Relay CPU is all relays' together, Redis CPU and commands all nodes' together, each per exchange."
  echo
  echo "| Redis | relays | exchanges/s | p50 ms | p99 ms | relay CPU µs/exchange | Redis commands/exchange | Redis CPU µs/exchange | failures |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} > "$OUT"
cat "$OUT"
