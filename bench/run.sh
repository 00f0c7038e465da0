#!/usr/bin/env bash
# The mcp-relay benchmark, in one command: bench/run.sh
#
# Starts, all on 127.0.0.1: a fast upstream MCP server (bench/fast-upstream.mjs), nginx as a plain pass-through
# reverse proxy (buffering off), a bare Reactor Netty relay (bench/bare-relay: the platform's ceiling), mcp-relay, and
# mcp-relay with five interceptors. Then measures, in this one run:
#   1. tools/call throughput and p50/p99 latency with wrk at each concurrency: direct, nginx, bare, relay, relay + 5;
#      then ROUNDS interleaved rounds of all five at concurrency 16, whose median ratios judge the throughput goal;
#   2. one long SSE stream: events and bytes per second, direct and through the relay;
#   3. the relay's resident size and heap with STREAMS concurrent open GET streams, and, where the machine allows a
#      memory cgroup, whether the relay as the image runs it holds them within a 512 MB limit;
#   4. warm-up: a freshly started relay's req/s at concurrency 16, second by second, from the moment it listens, and a
#      freshly started bare relay's the same way (how fast the platform itself warms up on this machine).
# Writes bench/results/<date>-<time>-<host>.md and stops everything it started. Installs nginx and wrk (Debian) if missing.
# Knobs (environment): DURATION (10s), WARMUP (5s), JVM_WARMUP (40s, for the relays' JIT), CONCURRENCY ("1 16 64"),
# SSE_EVENTS (200000), SSE_WARMUP (20 unmeasured streams per target), STREAMS (10000), WARM_SECONDS (30), ROUNDS (3).
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/sbin:/sbin"   # nginx lives in /usr/sbin, which a non-root PATH may lack
ROOT=$PWD
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-5s}
JVM_WARMUP=${JVM_WARMUP:-40s}
CONCURRENCY=${CONCURRENCY:-"1 16 64"}
SSE_EVENTS=${SSE_EVENTS:-200000}
SSE_WARMUP=${SSE_WARMUP:-20}
WARM_SECONDS=${WARM_SECONDS:-30}
ROUNDS=${ROUNDS:-3}
STREAMS=${STREAMS:-10000}
RELAY_CMD=()
RELAY_PREFIX=()
# The image runs the relay on Java 25 with an AOT cache (deploy/aot-cache.sh): the sections that start the relay "as the
# image starts it" do the same, with this java.
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
# the heap bound the image starts the relay with
IMAGE_HEAP=$(grep -o -- '-XX:MaxRAMPercentage=[0-9.]*' deploy/start-relay.sh)
# each open stream holds two sockets in the relay (the client's and the upstream's) and one in each peer; where the
# hard limit on open files cannot hold that many, fewer streams are measured (the report says how many). An idle
# relay holds about 110 files of its own (its jars, event loops, log): 200 are kept for them.
HARD_FILES=$(ulimit -Hn)
if [ "$HARD_FILES" != unlimited ] && [ "$HARD_FILES" -lt $((STREAMS * 2 + 200)) ]; then
  STREAMS=$(( (HARD_FILES - 200) / 2 / 100 * 100 ))
  echo "the hard limit of $HARD_FILES open files holds $STREAMS streams: measuring those" >&2
fi
ulimit -n "$HARD_FILES"
# shellcheck source=bench/lib.sh
. bench/lib.sh

require_tools() {
  command -v node >/dev/null || { echo "bench needs Node.js 18+ on the PATH" >&2; exit 1; }
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    log "installing nginx (Debian nginx-light)"
    install_debian nginx-light
    # the package starts a system nginx on port 80: the bench runs its own, on loopback only
    (service nginx stop || pkill -x nginx || true) >/dev/null 2>&1
  fi
  command -v wrk >/dev/null || { log "installing wrk (Debian)"; install_debian wrk; }
}

# latency text from wrk (850.00us, 1.23ms, 1.02s) in milliseconds
to_ms() {
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

build() {
  log "building the relay"
  ./mvnw -q -B package -DskipTests -pl relay -am
  JAR=$(ls "$ROOT"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)
  mkdir -p "$WORK/jar" "$WORK/interceptors"
  (cd "$WORK/jar" && jar xf "$JAR")
  javac -nowarn -d "$WORK/interceptors" -cp "$WORK/jar/BOOT-INF/classes:$WORK/jar/BOOT-INF/lib/*" \
    bench/interceptors/dev/mcprelay/bench/*.java
  mkdir -p "$WORK/bare"
  javac -nowarn -d "$WORK/bare" -cp "$WORK/jar/BOOT-INF/lib/*" bench/bare-relay/dev/mcprelay/bench/*.java
}

start_bare() {
  BARE_PORT=$(free_port)
  java -cp "$WORK/bare:$WORK/jar/BOOT-INF/lib/*" dev.mcprelay.bench.BareRelay "$BARE_PORT" \
    "http://127.0.0.1:$UPSTREAM_PORT/mcp" >"$WORK/bare.log" 2>&1 &
  PIDS+=($!)
  wait_port "$BARE_PORT"
}

# load_curve FILE URL: concurrency 16 from now on, one req/s figure per second for WARM_SECONDS, into FILE
load_curve() {
  : >"$1"
  for second in $(seq 1 "$WARM_SECONDS"); do
    wrk -t2 -c16 -d1s -s bench/tools-call.lua "$2" 2>/dev/null \
      | awk -v s="$second" '/^Requests\/sec/ {print s, $2}' >>"$1"
  done
}

# image_layout: the relay laid out as the container image runs it (extracted jar, AOT cache trained by
# deploy/aot-cache.sh on Java 25), once per run; start_relay then launches it by the image's own entry point,
# deploy/start-relay.sh, so the flags the cache needs cannot drift from the image's
image_layout() {
  [ -d "$WORK/image" ] || JAVA="$JAVA25" bash deploy/aot-cache.sh "$JAR" "$WORK/image"
  mkdir -p "$WORK/no-plugins"
  RELAY_CMD=(env JAVA="$JAVA25" RELAY_HOME="$WORK/image" LOADER_PATH="$WORK/no-plugins" sh deploy/start-relay.sh)
}

# warmup_curve: a fresh relay as the container image runs it (image_layout), loaded at concurrency 16 from the moment
# it listens; then a fresh bare relay the same way: how fast the platform itself (the JVM's JIT on these cores,
# Reactor Netty) warms up. bench/warmup.sh compares the runtimes.
warmup_curve() {
  log "warm-up: a fresh relay, second by second"
  local start_ns
  image_layout
  start_ns=$(date +%s%N)
  start_relay WARM_PORT WARM_PID
  RELAY_CMD=()
  WARM_LISTEN_MS=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  load_curve "$WORK/warm.txt" "http://127.0.0.1:$WARM_PORT/mcp/fast"
  kill "$WARM_PID" 2>/dev/null || true
  log "warm-up: a fresh bare relay, second by second"
  local port pid
  port=$(free_port)
  start_ns=$(date +%s%N)
  java -cp "$WORK/bare:$WORK/jar/BOOT-INF/lib/*" dev.mcprelay.bench.BareRelay "$port" \
    "http://127.0.0.1:$UPSTREAM_PORT/mcp" >"$WORK/bare-warm.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_port "$port"
  BARE_WARM_LISTEN_MS=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  load_curve "$WORK/warm-bare.txt" "http://127.0.0.1:$port/mcp"
  kill "$pid" 2>/dev/null || true
}

start_upstream() {
  UPSTREAM_PORT=$(free_port)
  PORT=$UPSTREAM_PORT node bench/fast-upstream.mjs 2>"$WORK/upstream.log" &
  PIDS+=($!)
  wait_port "$UPSTREAM_PORT"
}

start_nginx() {
  NGINX_PORT=$(free_port)
  mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
  cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/tmp;
  proxy_temp_path $WORK/nginx/tmp;
  upstream mcp { server 127.0.0.1:$UPSTREAM_PORT; keepalive 128; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location /mcp {
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
CONF
  nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>>"$WORK/nginx/logs/error.log" &
  PIDS+=($!)
  wait_port "$NGINX_PORT"
}

# start_relay <var for port> <var for pid> [loader.path]
start_relay() {
  local port; port=$(free_port)
  local loader=()
  [ -n "${3:-}" ] && loader=(-Dloader.path="$3")
  local launch=("${RELAY_CMD[@]}")
  [ ${#launch[@]} -eq 0 ] && launch=(java "${loader[@]}" -cp "$JAR" org.springframework.boot.loader.launch.PropertiesLauncher)
  "${RELAY_PREFIX[@]}" "${launch[@]}" \
    --server.port="$port" --server.address=127.0.0.1 \
    --mcp-relay.servers.fast.url="http://127.0.0.1:$UPSTREAM_PORT/mcp" \
    --mcp-relay.servers.fast.timeouts.streaming-idle=600s \
    --mcp-relay.connection-pool.max-connections=$((STREAMS + 1000)) \
    --mcp-relay.servers.fast.tools.deny[0]='forbidden_*' \
    --mcp-relay.security.mode=none \
    --logging.level.root=WARN --logging.level.mcp.relay.access=INFO \
    --logging.level.dev.mcprelay.intercept.InterceptorChains=INFO >"$WORK/relay-$port.log" 2>&1 &
  PIDS+=($!)
  printf -v "$1" '%s' "$port"
  printf -v "$2" '%s' "$!"
  wait_port "$port"
}

check_answers() {
  local url=$1
  curl -sf -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -d "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" bench/tools-call.lua)" "$url" | grep -q 'hello from wrk' \
    || { echo "$url did not answer tools/call correctly" >&2; exit 1; }
}

# load <label> <url> <concurrency>: one wrk run; appends "label c rps p50 p99" to $WORK/load.txt
load() {
  local label=$1 url=$2 c=$3 threads=2 out="$WORK/wrk.out"
  [ "$c" -lt 2 ] && threads=1
  wrk -t"$threads" -c"$c" -d"$DURATION" --latency -s bench/tools-call.lua "$url" >"$out"
  if grep -q 'Non-2xx\|Socket errors' "$out"; then
    echo "wrk saw errors against $label:" >&2; cat "$out" >&2; exit 1
  fi
  local rps p50 p99
  rps=$(awk '/^Requests\/sec/ {print $2}' "$out")
  p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")
  p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")
  echo "$label $c $rps $p50 $p99" >>"$WORK/load.txt"
  printf '%-10s c=%-3s %10s req/s  p50 %7s ms  p99 %7s ms\n' "$label" "$c" "$rps" "$p50" "$p99" >&2
}

# sse <label> <url>: one long stream; appends "label events seconds bytes" to $WORK/sse.txt
sse() {
  local label=$1 url=$2 best=""
  local body="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"stream\",\"arguments\":{\"events\":$SSE_EVENTS,\"size\":200}}}"
  # every target streams SSE_WARMUP times unmeasured first (the relay's 20 take about 6 s): the relays' JIT compiles
  # the event path, which the tools/call warm-up does not run (after 8 streams the relay was still 25% short of its
  # steady rate); how a cold relay does is the warm-up section's business
  for _ in $(seq 1 "$SSE_WARMUP"); do
    curl -sN -o /dev/null -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -d "$body" "$url"
  done
  for _ in 1 2 3; do
    local result
    result=$(curl -sN -o "$WORK/sse.out" -w '%{time_total} %{size_download}' -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -d "$body" "$url")
    tail -c 300 "$WORK/sse.out" | grep -q "streamed $SSE_EVENTS" || { echo "the $label stream was cut short" >&2; exit 1; }
    if [ -z "$best" ] || awk -v a="${result% *}" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then best=$result; fi
  done
  echo "$label $SSE_EVENTS $best" >>"$WORK/sse.txt"
  printf '%-10s %s events in %s s (%s bytes)\n' "$label" "$SSE_EVENTS" "${best% *}" "${best#* }" >&2
}

# runs a full GC, lets G1 return what it no longer needs to the OS, then reads the heap in use
heap_used() {
  jcmd "$1" GC.run >/dev/null
  sleep 3
  curl -sf "http://127.0.0.1:$2/actuator/prometheus" | awk '/^jvm_memory_used_bytes\{area="heap"/ { s += $NF } END { printf "%.0f", s }'
}

rss_kb() { ps -o rss= -p "$1" | tr -d ' '; }

memory() {
  log "memory: $STREAMS open GET streams through the relay"
  local before_rss before_heap
  heap_used "$RELAY_PID" "$RELAY_PORT" >/dev/null  # a first GC after the load test shrinks the heap
  before_heap=$(heap_used "$RELAY_PID" "$RELAY_PORT"); before_rss=$(rss_kb "$RELAY_PID")
  mkfifo "$WORK/hold"
  node bench/open-streams.mjs "http://127.0.0.1:$RELAY_PORT/mcp/fast" "$STREAMS" <"$WORK/hold" >"$WORK/streams.out" 2>&1 &
  local client=$!
  exec 7>"$WORK/hold"
  for _ in $(seq 1 600); do grep -q "^open $STREAMS" "$WORK/streams.out" && break; sleep 0.1; done
  grep -q "^open $STREAMS" "$WORK/streams.out" || { echo "the streams did not all open:" >&2; cat "$WORK/streams.out" >&2; exit 1; }
  sleep 2
  OPEN_GAUGE=$(curl -sf "http://127.0.0.1:$RELAY_PORT/actuator/prometheus" | awk '/^mcp_relay_streams_active\{server="fast"\}/ {print $2}')
  local after_rss after_heap
  after_heap=$(heap_used "$RELAY_PID" "$RELAY_PORT"); after_rss=$(rss_kb "$RELAY_PID")
  exec 7>&-
  wait "$client" || true
  MEMORY="$before_rss $after_rss $before_heap $after_heap"
  echo "rss ${before_rss} -> ${after_rss} KB, heap ${before_heap} -> ${after_heap} bytes, gauge ${OPEN_GAUGE}" >&2
}

# container_memory: the relay as the image runs it (AOT cache, the Dockerfile's -XX:MaxRAMPercentage) in a memory
# cgroup limited to 512 MB, as a container with that limit holds it, with $STREAMS open GET streams: does it stay up,
# and how much of the limit does it take (the kernel's memory for its sockets counts, as it does in a container).
# Needs a cgroup v1 memory controller this user may write to; elsewhere it is skipped and the report says so.
container_memory() {
  CONTAINER=""
  local own cg
  own=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
  cg="$own/mcp-relay-bench-$$"
  if ! { [ -w "$own" ] && mkdir "$cg" 2>/dev/null && echo $((512 * 1024 * 1024)) >"$cg/memory.limit_in_bytes"; }; then
    log "memory in a 512 MB container: no writable cgroup v1 memory controller here; skipped"
    return 0
  fi
  log "memory in a 512 MB container: $STREAMS open GET streams"
  image_layout
  # shellcheck disable=SC2016 # expanded by the inner shell, which then becomes the relay
  RELAY_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg")
  start_relay BOXED_PORT BOXED_PID
  RELAY_PREFIX=(); RELAY_CMD=()
  mkfifo "$WORK/hold-boxed"
  node bench/open-streams.mjs "http://127.0.0.1:$BOXED_PORT/mcp/fast" "$STREAMS" <"$WORK/hold-boxed" >"$WORK/boxed.out" 2>&1 &
  local client=$! opened=no alive=no rss=0
  exec 8>"$WORK/hold-boxed"
  for _ in $(seq 1 600); do
    grep -q "^open $STREAMS" "$WORK/boxed.out" && { opened=yes; break; }
    kill -0 "$BOXED_PID" 2>/dev/null || break
    sleep 0.1
  done
  sleep 2
  kill -0 "$BOXED_PID" 2>/dev/null && { alive=yes; rss=$(rss_kb "$BOXED_PID"); }
  local peak kills
  peak=$(( $(cat "$cg/memory.max_usage_in_bytes") / 1048576 ))
  kills=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control")
  exec 8>&-
  kill "$BOXED_PID" 2>/dev/null || true
  wait "$client" "$BOXED_PID" 2>/dev/null || true
  rmdir "$cg" 2>/dev/null || true
  CONTAINER="$opened $alive $((rss / 1024)) $peak ${kills:-0}"
  echo "opened $opened, alive $alive, rss $((rss / 1024)) MB, peak $peak MB, oom kills ${kills:-0}" >&2
}

# round_median A B: the median over the interleaved rounds of A's req/s over B's
round_median() {
  awk -v a="$1" -v b="$2" '$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
    END { for (k in x) if (y[k] > 0) r[++n] = x[k] / y[k]
          for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
          if (n == 0) print "n/a"; else if (n % 2) printf "%.2f", r[(n + 1) / 2]; else printf "%.2f", (r[n / 2] + r[n / 2 + 1]) / 2 }' \
    "$WORK/rounds.txt"
}

# warm_row LABEL LISTEN_MS FILE: one row of the warm-up table, against LABEL's req/s at concurrency 16
warm_row() {
  local steady first10 from_start to90
  steady=$(awk -v l="$1" '$1 == l && $2 == 16 {print $3}' "$WORK/load.txt")
  first10=$(awk '$1 <= 10 { s += $2; n++ } END { if (n) printf "%.0f", s / n }' "$3")
  # the first 10 s from process start: nothing while it starts, then the seconds that fit
  from_start=$(awk -v l="$2" '$1 <= 10 - l / 1000 { s += $2 } END { printf "%.0f", s / 10 }' "$3")
  to90=$(awk -v t="$steady" '$2 >= 0.9 * t { print $1; exit }' "$3")
  echo "| $1 | $2 ms | $steady | $first10 req/s, $(ratio "$first10" "$steady") | $from_start req/s, $(ratio "$from_start" "$steady") | ${to90:-not within $WARM_SECONDS s} |"
}

report() {
  local file="bench/results/$(date +%F-%H%M)-$(hostname -s).md"
  {
    echo "# mcp-relay benchmark, $(date -u '+%F %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores ($(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')), $(free -g | awk '/Mem:/ {print $2}') GiB;"
    echo "$(java -version 2>&1 | head -1); node $(node -v); $(nginx -v 2>&1); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)."
    echo "Everything on 127.0.0.1 of this one machine: wrk, the upstream, nginx and the relays share its cores."
    echo "wrk: $DURATION per run after a warm-up ($WARMUP; $JVM_WARMUP for the relays' JIT), one tools/call (JSON answer) per request. The relays"
    echo "run their default configuration (security mode none, access log on, to a file; the upstream pool sized for $STREAMS streams); nginx writes no access log. Relay + 5: four"
    echo "interceptor beans (bench/interceptors) and policy (a tool deny list)."
    echo
    echo "## tools/call, request/response"
    echo
    echo "| target | concurrency | req/s | p50 ms | p99 ms | req/s vs direct | req/s vs nginx | p99 vs nginx |"
    echo "|---|---|---|---|---|---|---|---|"
    while read -r label c rps p50 p99; do
      local direct nginx nginx99
      direct=$(awk -v c="$c" '$1 == "direct" && $2 == c {print $3}' "$WORK/load.txt")
      nginx=$(awk -v c="$c" '$1 == "nginx" && $2 == c {print $3}' "$WORK/load.txt")
      nginx99=$(awk -v c="$c" '$1 == "nginx" && $2 == c {print $5}' "$WORK/load.txt")
      echo "| $label | $c | $rps | $p50 | $p99 | $(ratio "$rps" "$direct") | $(ratio "$rps" "$nginx") | $(ratio "$p99" "$nginx99") |"
    done <"$WORK/load.txt"
    echo
    echo "## tools/call at concurrency 16, interleaved ($ROUNDS rounds of $DURATION, each round's targets back to back)"
    echo
    echo "On shared cores one target's speed moves between runs as much as a change would; within a round every target"
    echo "meets the same machine state, so each round gives its own ratios, and the median of the rounds is the figure."
    echo
    echo "| round | direct | nginx | bare | relay | relay+5 | relay / nginx | relay / bare | relay+5 / relay |"
    echo "|---|---|---|---|---|---|---|---|---|"
    local round
    for round in $(seq 1 "$ROUNDS"); do
      local d n b r r5
      read -r d n b r r5 <<<"$(awk -v k="$round" '$1 == k {printf "%s ", $3}' "$WORK/rounds.txt")"
      echo "| $round | $d | $n | $b | $r | $r5 | $(ratio "$r" "$n") | $(ratio "$r" "$b") | $(ratio "$r5" "$r") |"
    done
    echo "| median | | | | | | $(round_median relay nginx) | $(round_median relay bare) | $(round_median relay+5 relay) |"
    echo
    echo "## One SSE stream ($SSE_EVENTS events of about 200 bytes; best of three after $SSE_WARMUP unmeasured)"
    echo
    echo "| target | seconds | events/s | MB/s | vs direct |"
    echo "|---|---|---|---|---|"
    local direct_eps
    direct_eps=$(awk '$1 == "direct" { printf "%.0f", $2 / $3 }' "$WORK/sse.txt")
    while read -r label events seconds bytes; do
      local eps; eps=$(awk -v e="$events" -v s="$seconds" 'BEGIN { printf "%.0f", e / s }')
      echo "| $label | $seconds | $eps | $(awk -v b="$bytes" -v s="$seconds" 'BEGIN { printf "%.1f", b / s / 1e6 }') | $(ratio "$eps" "$direct_eps") |"
    done <"$WORK/sse.txt"
    echo
    echo "## Memory with $STREAMS open GET streams (relay, default JVM settings)"
    echo
    read -r before_rss after_rss before_heap after_heap <<<"$MEMORY"
    echo "| | idle | $STREAMS streams | per stream |"
    echo "|---|---|---|---|"
    echo "| resident size (after a GC) | $((before_rss / 1024)) MB | $((after_rss / 1024)) MB | $(( (after_rss - before_rss) / STREAMS )) KB |"
    echo "| heap used after GC | $((before_heap / 1048576)) MB | $((after_heap / 1048576)) MB | $(( (after_heap - before_heap) / STREAMS / 1024 )) KB |"
    echo
    echo "\`mcp_relay_streams_active{server=\"fast\"}\` read $OPEN_GAUGE while the streams were open."
    echo
    echo "## $STREAMS open GET streams in a 512 MB container"
    echo
    if [ -z "$CONTAINER" ]; then
      echo "Not measured: no writable cgroup v1 memory controller on this machine."
    else
      read -r opened alive rss peak kills <<<"$CONTAINER"
      echo "The relay as the image starts it ($IMAGE_HEAP, Java 25 and its AOT cache; the JVM sees the limit and sizes its heap and"
      echo "collector from it) in a memory cgroup limited to 512 MB; the cgroup also counts the kernel's memory for the sockets."
      echo
      echo "| all streams open | relay still up | resident size | peak use of the 512 MB | OOM kills |"
      echo "|---|---|---|---|---|"
      echo "| $opened | $alive | $rss MB | $peak MB | $kills |"
    fi
    echo
    echo "## Warm-up (a fresh process at concurrency 16 from the moment it listens; the bare relay beside it)"
    echo
    echo "The relay as the image runs it (Java 25, extracted jar and the AOT cache of deploy/aot-cache.sh); the bare relay from its classes, on the default java."
    echo "Each against its own steady state (the load test above, concurrency 16)."
    echo
    echo "| | listening after launch | steady req/s | first 10 s after it listens | first 10 s after launch | seconds from listening to 90% |"
    echo "|---|---|---|---|---|---|"
    warm_row relay "$WARM_LISTEN_MS" "$WORK/warm.txt"
    warm_row bare "$BARE_WARM_LISTEN_MS" "$WORK/warm-bare.txt"
    echo
    echo "Relay, per second: $(awk '{ printf "%s%s", sep, int($2); sep = ", " }' "$WORK/warm.txt")."
    echo
    echo "Bare, per second: $(awk '{ printf "%s%s", sep, int($2); sep = ", " }' "$WORK/warm-bare.txt")."
  } >"$file"
  log "report: $file"
  cat "$file"
}

require_tools
build
start_upstream
start_nginx
start_bare
warmup_curve
start_relay RELAY_PORT RELAY_PID
start_relay RELAY5_PORT RELAY5_PID "$WORK/interceptors"
TARGETS=("direct http://127.0.0.1:$UPSTREAM_PORT/mcp" "nginx http://127.0.0.1:$NGINX_PORT/mcp"
  "bare http://127.0.0.1:$BARE_PORT/mcp" "relay http://127.0.0.1:$RELAY_PORT/mcp/fast"
  "relay+5 http://127.0.0.1:$RELAY5_PORT/mcp/fast")
for target in "${TARGETS[@]}"; do check_answers "${target#* }"; done
grep -q 'bench-argument-injection' "$WORK/relay-$RELAY5_PORT.log" \
  || { echo "the bench interceptors did not load:" >&2; cat "$WORK/relay-$RELAY5_PORT.log" >&2; exit 1; }

log "tools/call load"
: >"$WORK/load.txt"
for target in "${TARGETS[@]}"; do
  label=${target%% *}; url=${target#* }
  warmup=$WARMUP; [[ $label == relay* || $label == bare ]] && warmup=$JVM_WARMUP
  wrk -t2 -c16 -d"$warmup" -s bench/tools-call.lua "$url" >/dev/null
  for c in $CONCURRENCY; do load "$label" "$url" "$c"; done
done

log "tools/call at concurrency 16, $ROUNDS interleaved rounds"
: >"$WORK/rounds.txt"
for round in $(seq 1 "$ROUNDS"); do
  for target in "${TARGETS[@]}"; do
    label=${target%% *}; url=${target#* }
    rps=$(wrk -t2 -c16 -d"$DURATION" -s bench/tools-call.lua "$url" | awk '/^Requests\/sec/ {print $2}')
    echo "$round $label $rps" >>"$WORK/rounds.txt"
    printf 'round %s %-10s %10s req/s\n' "$round" "$label" "$rps" >&2
  done
done

log "SSE stream"
: >"$WORK/sse.txt"
sse direct "http://127.0.0.1:$UPSTREAM_PORT/mcp"
sse nginx "http://127.0.0.1:$NGINX_PORT/mcp"
sse relay "http://127.0.0.1:$RELAY_PORT/mcp/fast"

memory
container_memory
report
