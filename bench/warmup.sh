#!/usr/bin/env bash
# bench/warmup.sh: how fast a freshly started relay serves, on each runtime the image could use, in one run.
#
# Builds the relay, starts the bench's fast upstream (bench/fast-upstream.mjs) on 127.0.0.1, then for each target
# starts a fresh process, loads it with wrk at concurrency 16 from the moment it listens, one req/s figure per second
# for WARM_SECONDS, then measures its steady rate for 10 s:
#   relay, Java 17 + CDS    the jar extracted, a class-data-sharing archive of its start-up (the image until now)
#   relay, Java 25          the jar extracted, nothing else
#   relay, Java 25 + AOT    the jar extracted, the AOT cache of deploy/aot-cache.sh (the image now)
#   bare, Java 17 / 25      the bare Reactor Netty relay (bench/bare-relay): how fast the platform itself warms up
# Reports time to listen, the first 10 s after listening and after launch against steady, and the time to 90%.
# Nothing is asserted. JAVA17 and JAVA25 name the two runtimes; WARM_SECONDS (30) the length of each curve; ROUNDS (2)
# how many times each target is measured, in interleaved rounds; TARGETS which of them, by these names:
# cds java25 aot bare17 bare25 (all by default).
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA17=${JAVA17:-java}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
WARM_SECONDS=${WARM_SECONDS:-30}
ROUNDS=${ROUNDS:-2}
TARGETS=${TARGETS:-cds java25 aot bare17 bare25}
# shellcheck source=bench/lib.sh
. bench/lib.sh
command -v wrk >/dev/null || { echo "bench/warmup.sh needs wrk (Debian: apt-get install wrk)" >&2; exit 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

log "building the relay and the bare relay"
./mvnw -q -B package -DskipTests -pl relay -am
JAR=$(ls relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)
mkdir -p "$WORK/jar" "$WORK/bare"
(cd "$WORK/jar" && jar xf "$OLDPWD/$JAR")
javac -nowarn -d "$WORK/bare" -cp "$WORK/jar/BOOT-INF/lib/*" bench/bare-relay/dev/mcprelay/bench/*.java

log "laying the relay out three ways"
"$JAVA17" -Djarmode=tools -jar "$JAR" extract --destination "$WORK/cds" >/dev/null
mv "$WORK/cds/$(basename "$JAR")" "$WORK/cds/mcp-relay.jar"
"$JAVA17" -XX:ArchiveClassesAtExit="$WORK/cds/mcp-relay.jsa" -Dspring.context.exit=onRefresh \
  -jar "$WORK/cds/mcp-relay.jar" --logging.level.root=WARN >/dev/null 2>&1 || true
"$JAVA25" -Djarmode=tools -jar "$JAR" extract --destination "$WORK/plain" >/dev/null
mv "$WORK/plain/$(basename "$JAR")" "$WORK/plain/mcp-relay.jar"
JAVA="$JAVA25" bash deploy/aot-cache.sh "$JAR" "$WORK/aot"

UPSTREAM_PORT=$(free_port)
PORT=$UPSTREAM_PORT node bench/fast-upstream.mjs 2>"$WORK/upstream.log" &
PIDS+=($!)
wait_port "$UPSTREAM_PORT"

# measure LABEL PATH JAVA ARGS...: a fresh process, its curve and its steady rate; one table row
measure() {
  local label=$1 path=$2 java=$3; shift 3
  local port; port=$(free_port)
  log "$label"
  local start_ns; start_ns=$(date +%s%N)
  if [ "$path" = bare ]; then
    "$java" "$@" -cp "$WORK/bare:$WORK/jar/BOOT-INF/lib/*" dev.mcprelay.bench.BareRelay "$port" \
      "http://127.0.0.1:$UPSTREAM_PORT/mcp" >"$WORK/$port.log" 2>&1 &
  else
    "$java" "$@" --server.port="$port" --server.address=127.0.0.1 \
      --mcp-relay.servers.fast.url="http://127.0.0.1:$UPSTREAM_PORT/mcp" --mcp-relay.security.mode=none \
      --logging.level.root=WARN --logging.level.mcp.relay.access=INFO >"$WORK/$port.log" 2>&1 &
  fi
  local pid=$!
  PIDS+=("$pid")
  wait_port "$port"
  local listen_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  local url="http://127.0.0.1:$port/mcp"; [ "$path" = bare ] || url="$url/fast"
  : >"$WORK/curve.txt"
  for second in $(seq 1 "$WARM_SECONDS"); do
    wrk -t2 -c16 -d1s -s bench/tools-call.lua "$url" 2>/dev/null | awk -v s="$second" '/^Requests\/sec/ {print s, $2}' >>"$WORK/curve.txt"
  done
  local steady
  steady=$(wrk -t2 -c16 -d10s -s bench/tools-call.lua "$url" 2>/dev/null | awk '/^Requests\/sec/ {printf "%.0f", $2}')
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local first10 from_start to90
  first10=$(awk '$1 <= 10 { s += $2; n++ } END { if (n) printf "%.0f", s / n }' "$WORK/curve.txt")
  from_start=$(awk -v l="$listen_ms" '$1 <= 10 - l / 1000 { s += $2 } END { printf "%.0f", s / 10 }' "$WORK/curve.txt")
  to90=$(awk -v t="$steady" '$2 >= 0.9 * t { print $1; exit }' "$WORK/curve.txt")
  local reached="not within $WARM_SECONDS s"; [ -n "$to90" ] && reached="$to90 s"
  ROWS+=("| $label | $listen_ms ms | $steady | $first10, $(ratio "$first10" "$steady") | $from_start, $(ratio "$from_start" "$steady") | $reached |")
  CURVES+=("$label: $(awk '{ printf "%s%s", sep, int($2); sep = ", " }' "$WORK/curve.txt")")
}

ROWS=()
CURVES=()
# ROUNDS rounds, each target once per round in the same order, so that no target meets only a quiet or a busy machine
for round in $(seq 1 "$ROUNDS"); do
  for target in $TARGETS; do
    case $target in
      cds) measure "relay, Java 17 + CDS archive ($round)" relay "$JAVA17" -XX:SharedArchiveFile="$WORK/cds/mcp-relay.jsa" \
        -jar "$WORK/cds/mcp-relay.jar" ;;
      java25) measure "relay, Java 25 ($round)" relay "$JAVA25" --enable-native-access=ALL-UNNAMED -jar "$WORK/plain/mcp-relay.jar" ;;
      aot) measure "relay, Java 25 + AOT cache ($round)" relay "$JAVA25" -XX:AOTCache="$WORK/aot/mcp-relay.aot" \
        --enable-native-access=ALL-UNNAMED -jar "$WORK/aot/mcp-relay.jar" ;;
      bare17) measure "bare relay, Java 17 ($round)" bare "$JAVA17" ;;
      bare25) measure "bare relay, Java 25 ($round)" bare "$JAVA25" --enable-native-access=ALL-UNNAMED ;;
      *) echo "unknown target $target (cds java25 aot bare17 bare25)" >&2; exit 1 ;;
    esac
  done
done

{
  echo "Warm-up, $(date -u '+%F %H:%M UTC'), $(nproc) cores; $("$JAVA17" -version 2>&1 | head -1); $("$JAVA25" -version 2>&1 | head -1)."
  echo "Each target a fresh process, loaded with wrk at concurrency 16 (tools/call) from the moment it listens; steady"
  echo "is a 10 s run after its ${WARM_SECONDS}-second curve; the first 10 s after launch count the start as 0 req/s."
  echo
  echo "| target | time to listen | steady req/s | first 10 s after listening, req/s and share | first 10 s after launch | time to 90% of steady |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Per second, after listening:"
  echo
  printf -- '- %s\n' "${CURVES[@]}"
}
