#!/usr/bin/env bash
# Virtual-server fan-out, in one command: bench/virtual-fanout.sh
#
# Starts three member servers on 127.0.0.1 (bench/delayed-member.mjs) that answer after 50, 100 and 150 ms, and the
# relay (the packaged jar; built if missing) with the three as servers and one virtual server composing them. Then,
# sequentially, REQUESTS times each: tools/list of each member through the relay, and the merged tools/list of the
# virtual server (in one session). A merged list asked of the members one after another would take the sum of their
# times (about 300 ms); asked of all at once, about the slowest's (150 ms). Writes
# bench/results/<date>-<time>-<host>-virtual-fanout.md. Knobs (environment): REQUESTS (30), TOOLS per member (20).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
REQUESTS=${REQUESTS:-30}
export TOOLS=${TOOLS:-20}
# shellcheck source=bench/lib.sh
. bench/lib.sh


JAR=$(ls relay/target/mcp-relay-*.jar 2>/dev/null | grep -v original | head -1 || true)
if [ -z "$JAR" ]; then
  ./mvnw -B -q package -DskipTests -pl relay -am
  JAR=$(ls relay/target/mcp-relay-*.jar | grep -v original | head -1)
fi

MEMBER_ARGS=()
i=0
for delay in 50 100 150; do
  i=$((i + 1))
  port=$(free_port)
  PORT=$port DELAY_MS=$delay node bench/delayed-member.mjs & PIDS+=($!)
  wait_port "$port"
  MEMBER_ARGS+=("--mcp-relay.servers.m$i.url=http://127.0.0.1:$port/mcp")
done
RELAY_PORT=$(free_port)
java -jar "$JAR" --server.port="$RELAY_PORT" --server.address=127.0.0.1 --mcp-relay.security.mode=none \
  --mcp-relay.access-log.enabled=false "${MEMBER_ARGS[@]}" --mcp-relay.virtual-servers.three.members=m1,m2,m3 \
  > "$WORK/relay.log" 2>&1 & PIDS+=($!)
wait_port "$RELAY_PORT"

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
LIST='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
ACCEPT='Accept: application/json, text/event-stream'

# Opens a session with endpoint $1; prints its id.
session() {
  curl -s -D - -o /dev/null -H 'Content-Type: application/json' -H "$ACCEPT" -d "$INIT" \
    "http://127.0.0.1:$RELAY_PORT/mcp/$1" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}'
}

# The median of REQUESTS sequential tools/list times (ms) at endpoint $1 in session $2.
median_ms() {
  for _ in $(seq 1 "$REQUESTS"); do
    curl -s -o /dev/null -w '%{time_total}\n' -H 'Content-Type: application/json' -H "$ACCEPT" \
      -H "Mcp-Session-Id: $2" -H 'MCP-Protocol-Version: 2025-06-18' -d "$LIST" "http://127.0.0.1:$RELAY_PORT/mcp/$1"
  done | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", t[int((NR + 1) / 2)] * 1000 }'
}

# warm the relay's code paths, unmeasured
for endpoint in m1 m2 m3 three; do
  id=$(session "$endpoint")
  REQUESTS=20 median_ms "$endpoint" "$id" > /dev/null
done

declare -A MEDIAN
for endpoint in m1 m2 m3 three; do
  id=$(session "$endpoint")
  MEDIAN[$endpoint]=$(median_ms "$endpoint" "$id")
done
SUM=$(awk -v a="${MEDIAN[m1]}" -v b="${MEDIAN[m2]}" -v c="${MEDIAN[m3]}" 'BEGIN { printf "%.1f", a + b + c }')
RATIO=$(awk -v v="${MEDIAN[three]}" -v s="${MEDIAN[m3]}" 'BEGIN { printf "%.2f", v / s }')

mkdir -p bench/results
OUT="bench/results/$(date -u +%Y-%m-%d-%H%M)-$(hostname -s)-virtual-fanout.md"
{
  echo "# Virtual server fan-out ($(date -u +%Y-%m-%d\ %H:%M) UTC, $(hostname -s))"
  echo
  echo "tools/list, median of $REQUESTS sequential requests each, through the relay (\`$(basename "$JAR")\`, mode none,"
  echo "access log off); members answer after a fixed delay with $TOOLS tools each."
  echo
  echo "| endpoint | member delay | median ms |"
  echo "|---|---|---|"
  echo "| /mcp/m1 | 50 ms | ${MEDIAN[m1]} |"
  echo "| /mcp/m2 | 100 ms | ${MEDIAN[m2]} |"
  echo "| /mcp/m3 | 150 ms | ${MEDIAN[m3]} |"
  echo "| /mcp/three (merged, $((TOOLS * 3)) tools) | all three | ${MEDIAN[three]} |"
  echo
  echo "Sum of the three members: $SUM ms; the merged list takes ${RATIO}× the slowest member's time."
} > "$OUT"
cat "$OUT"
