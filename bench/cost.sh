#!/usr/bin/env bash
# bench/cost.sh: what each proxy's own process spends per exchange, where the upstream costs nearly nothing.
#
# The upstream is nginx answering every POST /mcp with a fixed tools/call result (one worker, no Lua, no disk; a request
# of MCP 2026-07-28 gets that generation's form of it, with resultType complete): the cheapest upstream this machine
# has, so the proxies' own cost shows. In front of it, all on 127.0.0.1:
#   nginx-proxy   nginx as a plain pass-through reverse proxy (one worker, buffering off)
#   bare          a bare Reactor Netty relay (bench/bare-relay: the platform's floor)
#   relay         mcp-relay, default configuration, security mode none, access log on
#   relay-traced  the same with tracing on: OTLP export to the upstream nginx (which answers /v1/traces with 200),
#                 Spring Boot's default sampling of 10%
#   (not run unless named in TARGETS: relay-traced-none and relay-traced-all, tracing on with sampling 0 and 1, to
#   tell what an unsampled and a sampled message cost)
#   (also only when named: relay-5, mode none with five interceptors (bench/interceptors' four beans and a tool deny
#   list, as bench/run.sh's relay+5), relay-no-log, mode none with the access log off, and relay-policies, mode none
#   with ten policies on the server, none of which refuses the call)
#   (and only when named, the pair that compares a virtual server with the server addressed directly, both calling in
#   MCP 2026-07-28 form (bench/tools-call-2026.lua: no session, MCP-Protocol-Version, Mcp-Method and Mcp-Name headers,
#   the _meta envelope), each a relay configured alike (mode none, and a virtual server "one" whose only member is the
#   static upstream, with no tool prefix, so both send the member the same request): relay-virtual, tools/call
#   through the virtual server, and relay-direct-2026, the same call to the server directly)
#   relay-api-key mcp-relay in mode api-key (the key as a bearer token)
#   relay-jwt     mcp-relay in mode jwt (an RS256 token, validated against a JWK Set the upstream nginx serves; the
#                 same token every request, so the relay's decoder cache is what is measured)
# Each target first answers three calls as wrk sends them, each checked to be the upstream's result (never a JSON-RPC
# error), then is warmed up (JVM_WARMUP), then ROUNDS interleaved rounds run wrk at CONCURRENCY for DURATION against
# each target in turn; around each run the target process's CPU time (utime + stime from /proc/<pid>/stat; for nginx
# its worker's) is read, and for each JVM (the bare relay and every relay target) the bytes its threads allocated in
# the heap (bench/allocation-counter, a Java agent each JVM starts with, read over a loopback socket before the CPU
# time and after it: the JVM's own count of what its threads allocated, ended threads included, exact to the byte; on
# a JVM without that count (before Java 21 and its Java 17 backport) the live threads' counters, where a thread that
# ends during a round takes its last bytes with it, and the report counts such threads), so each round gives req/s,
# CPU microseconds and bytes allocated per request. The report leads with the CPU and allocation table (medians over the
# rounds, each target's ratio to the bare relay, and each JVM's JIT compilations from launch to the end of the rounds,
# by jstat), then the ratios issues 25 and 47 set goals for.
# Writes bench/results/<date>-<time>-<host>-cost.md. Installs nginx and wrk (Debian) if missing.
# Knobs (environment): DURATION (10s), JVM_WARMUP (30s), ROUNDS (3), CONCURRENCY (16), TARGETS (the targets above not
# marked "only when named", in that order; e.g. TARGETS="bare relay relay-traced" for a quicker A/B: a ratio whose
# targets did not run is "-").
# START_TIMEOUT (60): seconds a relay target may take to start listening (more on a loaded machine).
# Interleaved A/B of two revisions: B_REV=<commit> builds that revision too (a git worktree), and every relay target
# named with a "b-" prefix (TARGETS="bare relay b-relay relay-api-key b-relay-api-key") runs B's jar with the
# configuration of the target it names; the report adds each pair's B / A ratios. B_JAR=<path> takes B's jar from
# there instead of building B_REV (a jar an earlier run built and kept: KEEP_B_JAR=<path> copies it there), so that
# a series of A/B runs against one base builds it once; B_REV still names B in the report.
# PROFILE=<target>: samples that target's CPU with async-profiler (fetched from Maven Central; perf events, every
# PROFILE_INTERVAL ns of CPU, default 1 ms) over the measured rounds (not the warm-up) and appends its hottest methods
# (top frames) and the relay's and libraries' methods anywhere on the stack to the report; KEEP=1 keeps the stacks.
# PROFILE_EVENT=alloc samples what that target allocates in the heap instead (async-profiler's alloc event, a sample
# every PROFILE_ALLOC_INTERVAL bytes, default 64 KB, each weighed by the bytes it stands for): the top frames are then
# the classes allocated, and the shares are of bytes (default cpu).
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/sbin:/sbin"
ROOT=$PWD
DURATION=${DURATION:-10s}
JVM_WARMUP=${JVM_WARMUP:-30s}
ROUNDS=${ROUNDS:-3}
CONCURRENCY=${CONCURRENCY:-16}
TICKS=$(getconf CLK_TCK)
# shellcheck source=bench/lib.sh
. bench/lib.sh
read -r -a TARGETS <<<"${TARGETS:-nginx-proxy bare relay relay-traced relay-api-key relay-jwt}"
# runs TARGET: whether TARGET is one of this run's targets
runs() { [[ " ${TARGETS[*]} " == *" $1 "* ]]; }
declare -A URL CPU_PID ALLOC_PORT

# cpu_ticks PID: utime + stime of the process, in clock ticks (fields 14 and 15 of /proc/PID/stat, counted after the
# command name's closing parenthesis, which may hold spaces)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# allocated TARGET: the target JVM's allocation counter, "<bytes> <unseen-threads> <how>" (bench/allocation-counter)
allocated() {
  local line
  read -r line <"/dev/tcp/127.0.0.1/${ALLOC_PORT[$1]}" || { echo "no allocation counter answered in $1" >&2; exit 1; }
  echo "$line"
}

# request_script TARGET: the wrk script of the target's call: MCP 2026-07-28 form (no session) for the virtual server
# and the direct call it is compared with, else a 2025 client's after initialize
request_script() {
  case ${1#b-} in
    relay-virtual|relay-direct-2026) echo bench/tools-call-2026.lua ;;
    *) echo bench/tools-call.lua ;;
  esac
}

# call_once TARGET CURL-OPTIONS...: one call as wrk sends it to the target (headers and body read from its wrk script)
call_once() {
  local target=$1; shift
  local script; script=$(request_script "$target")
  local headers=() header
  while IFS= read -r header; do headers+=(-H "$header"); done \
    < <(sed -n 's/^wrk.headers\["\(.*\)"\] = "\(.*\)"$/\1: \2/p' "$script")
  [ -n "${AUTH[$target]:-}" ] && headers+=(-H "Authorization: Bearer ${AUTH[$target]}")
  curl -s "$@" "${headers[@]}" -d "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" "$script")" "${URL[$target]}"
}

# check_answers TARGET: three calls, each answered 200 with the upstream's result for the call's form (for 2026-07-28,
# with resultType complete) and no JSON-RPC error, else the script ends showing the answer and the target's log: what
# the rounds measure is the relayed call, not an error path
check_answers() {
  local target=$1 result=$RESULT
  [[ $(request_script "$target") == *2026* ]] && result=$RESULT_2026
  result=${result#*\"id\":1,}
  result=${result%\}}
  local attempt answer status
  for attempt in 1 2 3; do
    answer=$(call_once "$target" -w '\n%{http_code}')
    status=${answer##*$'\n'}
    answer=${answer%$'\n'*}
    if [ "$status" != 200 ] || [[ $answer != *"$result"* ]] || [[ $answer == *'"error"'* ]]; then
      echo "$target did not answer call $attempt with the upstream's result $result: HTTP $status, $answer" >&2
      tail -20 "$WORK/$target.log" >&2 2>/dev/null || true
      exit 1
    fi
  done
}

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

# nginx_worker MASTER_PID: the pid of the single worker of that nginx master
nginx_worker() {
  for _ in $(seq 1 50); do
    local worker; worker=$(pgrep -P "$1" | head -1 || true)
    [ -n "$worker" ] && { echo "$worker"; return; }
    sleep 0.1
  done
  echo "no nginx worker under $1" >&2
  exit 1
}

# start_nginx NAME CONFIG-BODY: one worker, the given server block(s); sets NGINX_PID
start_nginx() {
  local dir="$WORK/nginx-$1"
  mkdir -p "$dir/logs" "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  $2
}
CONF
  nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>>"$dir/logs/error.log" &
  NGINX_PID=$!
  PIDS+=("$NGINX_PID")
}

# start_relay NAME ARGS...: mcp-relay from the packaged jar (B's for a "b-" NAME) in front of the static upstream;
# sets URL and CPU_PID
start_relay() {
  local name=$1; shift
  local port; port=$(free_port)
  local jar=$JAR
  [[ $name == b-* ]] && jar=$B_JAR
  local loader=()
  [[ ${name#b-} == relay-5 ]] && loader=(-Dloader.path="$WORK/interceptors")
  ALLOC_PORT[$name]=$(free_port)
  java -javaagent:"$WORK/allocation-counter.jar=${ALLOC_PORT[$name]}" "${loader[@]}" \
    -cp "$jar" org.springframework.boot.loader.launch.PropertiesLauncher \
    --server.port="$port" --server.address=127.0.0.1 \
    --mcp-relay.servers.fast.url="http://127.0.0.1:$UPSTREAM_PORT/mcp" \
    --logging.level.root=WARN --logging.level.mcp.relay.access=INFO "$@" >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  CPU_PID[$name]=$!
  local server=fast
  [[ ${name#b-} == relay-virtual ]] && server=one
  URL[$name]="http://127.0.0.1:$port/mcp/$server"
  wait_port "$port" "${START_TIMEOUT:-60}"
}

# one_run TARGET SECONDS: wrk at CONCURRENCY; prints "req/s cpu-us-per-request p50-ms p99-ms bytes-per-request
# unseen-threads" (the last two "-" for nginx; unseen-threads: threads that ended during the run without the counter
# reading all they allocated, 0 when the bytes are exact)
one_run() {
  local target=$1 pid=${CPU_PID[$1]}
  local auth=()
  [ -n "${AUTH[$target]:-}" ] && auth=(-H "Authorization: Bearer ${AUTH[$target]}")
  local allocated_before="- -" allocated_after="- -"
  if [ -n "${ALLOC_PORT[$target]:-}" ]; then allocated_before=$(allocated "$target") || exit 1; fi
  local before; before=$(cpu_ticks "$pid")
  local script; script=$(request_script "$target")
  local out; out=$(wrk -t2 -c"$CONCURRENCY" -d"$2" --latency -s "$script" "${auth[@]}" "${URL[$target]}")
  local after; after=$(cpu_ticks "$pid")
  if [ -n "${ALLOC_PORT[$target]:-}" ]; then allocated_after=$(allocated "$target") || exit 1; fi
  local requests; requests=$(awk '/requests in/ { print $1 }' <<<"$out")
  local rps; rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
  local errors; errors=$(awk '/Non-2xx/ { print $NF }' <<<"$out")
  if [ -n "$errors" ]; then
    echo "$target answered $errors non-2xx; one of them, and its log:" >&2
    call_once "$target" -i >&2 || true
    tail -20 "$WORK/$target.log" >&2 || true
    exit 1
  fi
  local p50; p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  local p99; p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  awk -v r="$rps" -v t=$((after - before)) -v n="$requests" -v hz="$TICKS" -v a="$p50" -v b="$p99" \
    -v before="$allocated_before" -v after="$allocated_after" '
    function ms(v) { n2 = v + 0; if (v ~ /us$/) return n2 / 1000; if (v ~ /ms$/) return n2; return n2 * 1000 }
    BEGIN {
      split(before, b0, " "); split(after, b1, " ")
      bytes = b0[1] == "-" ? "-" : sprintf("%.0f", (b1[1] - b0[1]) / n)
      unseen = b0[1] == "-" ? "-" : b1[2] - b0[2]
      printf "%s %.1f %.3f %.3f %s %s\n", r, t * 1000000 / hz / n, ms(a), ms(b), bytes, unseen
    }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# profiler PID COMMAND: runs an async-profiler command (start, stop...) in the JVM PID, loading it on first use
profiler() { jcmd "$1" JVMTI.agent_load "$PROFILER_LIB" "\"$2\"" >/dev/null; }
PROFILE_INTERVAL=${PROFILE_INTERVAL:-1000000}
PROFILE_EVENT=${PROFILE_EVENT:-cpu}
PROFILE_ALLOC_INTERVAL=${PROFILE_ALLOC_INTERVAL:-65536}
case $PROFILE_EVENT in
  cpu) PROFILE_START="event=cpu,interval=$PROFILE_INTERVAL" PROFILE_STOP=collapsed
    PROFILE_WHAT="CPU samples every $((PROFILE_INTERVAL / 1000)) µs of CPU" PROFILE_SHARE="samples" ;;
  alloc) PROFILE_START="event=alloc,alloc=$PROFILE_ALLOC_INTERVAL" PROFILE_STOP=collapsed,total
    PROFILE_WHAT="heap allocations sampled every $PROFILE_ALLOC_INTERVAL bytes, weighed by bytes" PROFILE_SHARE="bytes allocated" ;;
  *) echo "PROFILE_EVENT is cpu or alloc, not $PROFILE_EVENT" >&2; exit 1 ;;
esac
if [ -n "${PROFILE:-}" ]; then
  log "fetching async-profiler (Maven Central)"
  ./mvnw -q -B dependency:copy -Dartifact=tools.profiler:async-profiler:4.2 -DoutputDirectory="$WORK/async-profiler"
  (cd "$WORK/async-profiler" && jar xf async-profiler-4.2.jar linux-x64/libasyncProfiler.so)
  PROFILER_LIB=$WORK/async-profiler/linux-x64/libasyncProfiler.so
fi

command -v wrk >/dev/null || { log "installing wrk (Debian)"; install_debian wrk; }
command -v nginx >/dev/null || { log "installing nginx (Debian nginx-light)"; install_debian nginx-light; (service nginx stop || pkill -x nginx || true) >/dev/null 2>&1; }

log "building the relay and the bare relay"
./mvnw -q -B package -DskipTests -pl relay -am
JAR=$(ls "$ROOT"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)
mkdir -p "$WORK/jar" "$WORK/bare"
(cd "$WORK/jar" && jar xf "$JAR")
javac -nowarn -d "$WORK/bare" -cp "$WORK/jar/BOOT-INF/lib/*" bench/bare-relay/dev/mcprelay/bench/*.java
mkdir -p "$WORK/interceptors"
javac -nowarn -d "$WORK/interceptors" -cp "$WORK/jar/BOOT-INF/classes:$WORK/jar/BOOT-INF/lib/*" \
  bench/interceptors/dev/mcprelay/bench/*.java
mkdir -p "$WORK/allocation-counter"
javac -nowarn -d "$WORK/allocation-counter" bench/allocation-counter/dev/mcprelay/bench/*.java
printf 'Premain-Class: dev.mcprelay.bench.AllocationCounter\n' >"$WORK/allocation-counter.mf"
jar cfm "$WORK/allocation-counter.jar" "$WORK/allocation-counter.mf" -C "$WORK/allocation-counter" .
GIVEN_B_JAR=${B_JAR:-}
B_JAR=
if [ -n "${B_REV:-}" ] && [ -n "$GIVEN_B_JAR" ]; then
  log "B ($B_REV) from $GIVEN_B_JAR"
  cp "$GIVEN_B_JAR" "$WORK/b.jar"
  B_JAR=$WORK/b.jar
elif [ -n "${B_REV:-}" ]; then
  log "building B ($B_REV)"
  git worktree add -q --detach "$WORK/b" "$B_REV"
  (cd "$WORK/b" && "$ROOT/mvnw" -q -B package -DskipTests -pl relay -am >/dev/null)
  cp "$(ls "$WORK/b"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)" "$WORK/b.jar"
  git worktree remove --force "$WORK/b"
  B_JAR=$WORK/b.jar
  if [ -n "${KEEP_B_JAR:-}" ]; then cp "$B_JAR" "$KEEP_B_JAR"; fi
fi

log "a key, an RSA key pair, its JWK Set and a token"
API_KEY=$(openssl rand -hex 32)
API_KEY_SHA256=$(printf %s "$API_KEY" | sha256sum | cut -d' ' -f1)
openssl genrsa -out "$WORK/jwt.pem" 2048 2>/dev/null
MODULUS=$(python3 -c 'import base64, sys; print(base64.urlsafe_b64encode(bytes.fromhex(sys.argv[1])).decode().rstrip("="))' \
  "$(openssl rsa -in "$WORK/jwt.pem" -noout -modulus | cut -d= -f2)")
mkdir -p "$WORK/static"
printf '{"keys":[{"kty":"RSA","kid":"bench","use":"sig","alg":"RS256","n":"%s","e":"AQAB"}]}' "$MODULUS" >"$WORK/static/jwks.json"
# nginx's worker runs as an unprivileged user when started by root: the JWK Set must be readable by it
chmod 755 "$WORK" "$WORK/static" && chmod 644 "$WORK/static/jwks.json"
HEADER=$(printf '{"alg":"RS256","kid":"bench","typ":"JWT"}' | b64url)
PAYLOAD=$(printf '{"sub":"bench","aud":"mcp-relay","scope":"mcp","iat":%d,"exp":%d}' "$(date +%s)" "$(( $(date +%s) + 86400 ))" | b64url)
SIGNATURE=$(printf %s "$HEADER.$PAYLOAD" | openssl dgst -sha256 -sign "$WORK/jwt.pem" -binary | b64url)
declare -A AUTH=([relay-api-key]="$API_KEY" [relay-jwt]="$HEADER.$PAYLOAD.$SIGNATURE"
  [b-relay-api-key]="$API_KEY" [b-relay-jwt]="$HEADER.$PAYLOAD.$SIGNATURE")

log "starting the static upstream, nginx, the bare relay and the relays"
UPSTREAM_PORT=$(free_port)
LIST_PORT=$(free_port)
python3 bench/list-upstream.py "$LIST_PORT" >"$WORK/list-upstream.log" 2>&1 &
PIDS+=($!)
wait_port "$LIST_PORT"
RESULT='{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello from wrk"}]}}'
# the same result as a 2026-07-28 server answers a request in that form (MCP-Protocol-Version 2026-07-28): every
# result of that generation says it is complete
RESULT_2026=${RESULT%\}\}},\"resultType\":\"complete\"}}
# the relay's own list requests ({"jsonrpc":"2.0","id":"mcp-relay-tools-N","method":"tools/list"}, 60 to 79 bytes;
# the benchmark's call is longer) go to bench/list-upstream.py, which answers them under their id: a relay whose tool
# list or policies read what a call names knows the benchmark's tools, as it would know a real server's
start_nginx upstream "map \$http_mcp_protocol_version \$mcp_answer { default '$RESULT'; 2026-07-28 '$RESULT_2026'; }
  server {
    listen 127.0.0.1:$UPSTREAM_PORT;
    location = /mcp {
      default_type application/json;
      if (\$http_content_length ~ \"^[67][0-9]\$\") { rewrite ^ /lists last; }
      return 200 \$mcp_answer;
    }
    location = /lists { internal; proxy_pass http://127.0.0.1:$LIST_PORT/mcp; }
    location = /jwks.json { root $WORK/static; default_type application/json; }
    location = /v1/traces { return 200; }
  }"
wait_port "$UPSTREAM_PORT"

PROXY_PORT=$(free_port)
start_nginx proxy "upstream mcp { server 127.0.0.1:$UPSTREAM_PORT; keepalive 128; }
  server {
    listen 127.0.0.1:$PROXY_PORT;
    location /mcp { proxy_pass http://mcp/mcp; proxy_http_version 1.1; proxy_set_header Connection \"\";
      proxy_buffering off; proxy_request_buffering off; }
  }"
wait_port "$PROXY_PORT"
CPU_PID[nginx-proxy]=$(nginx_worker "$NGINX_PID")
URL[nginx-proxy]="http://127.0.0.1:$PROXY_PORT/mcp"

BARE_PORT=$(free_port)
ALLOC_PORT[bare]=$(free_port)
java -javaagent:"$WORK/allocation-counter.jar=${ALLOC_PORT[bare]}" -cp "$WORK/bare:$WORK/jar/BOOT-INF/lib/*" \
  dev.mcprelay.bench.BareRelay "$BARE_PORT" \
  "http://127.0.0.1:$UPSTREAM_PORT/mcp" >"$WORK/bare.log" 2>&1 &
PIDS+=($!)
CPU_PID[bare]=$!
URL[bare]="http://127.0.0.1:$BARE_PORT/mcp"
wait_port "$BARE_PORT"

# policy_args: mode none with ten policies governing the server, each decided on every tools/call (none refuses the
# benchmark's call): the tool's name, the caller, a request header, the call's arguments, the method and the server
policy_args() {
  local rules=(
    'deny=mcp.tool.name == "drop_database"'
    'deny=mcp.tool.name.startsWith("admin_") && caller.kind != "jwt"'
    'deny=mcp.arguments.?message.orValue("") == "rm -rf /"'
    'allow=mcp.method != "tools/call" || mcp.tool.name in ["echo", "search", "get"]'
    'deny=request.headers[?"x-blocked"].orValue("") == "yes"'
    'deny=server.virtual == "quarantine"'
    'deny=mcp.direction == "server_to_client" && mcp.method == "sampling/createMessage"'
    'deny=mcp.prompt.name == "leak_secrets"'
    'deny=mcp.resource.uri.startsWith("file:///etc/")'
    'allow=caller.kind == "anonymous" || caller.scopes.exists(s, s == "mcp")'
  )
  local i=0 rule
  printf '%s\n' --mcp-relay.security.mode=none
  for rule in "${rules[@]}"; do
    printf '%s\n' "--mcp-relay.policies[$i].name=bench-$i" "--mcp-relay.policies[$i].servers[0]=fast" \
      "--mcp-relay.policies[$i].${rule%%=*}=${rule#*=}"
    i=$((i + 1))
  done
}

# relay_args TARGET: the relay configuration of a relay target, one argument per line ("b-" targets have that of the
# target they name)
relay_args() {
  local otlp=--management.opentelemetry.tracing.export.otlp.endpoint="http://127.0.0.1:$UPSTREAM_PORT/v1/traces"
  case ${1#b-} in
    relay) printf '%s\n' --mcp-relay.security.mode=none ;;
    relay-traced) printf '%s\n' --mcp-relay.security.mode=none "$otlp" ;;
    relay-5) printf '%s\n' --mcp-relay.security.mode=none '--mcp-relay.servers.fast.tools.deny[0]=forbidden_*' \
      --logging.level.dev.mcprelay.intercept.InterceptorChains=INFO ;;
    relay-no-log) printf '%s\n' --mcp-relay.security.mode=none --mcp-relay.access-log.enabled=false ;;
    relay-policies) policy_args ;;
    relay-virtual|relay-direct-2026) printf '%s\n' --mcp-relay.security.mode=none \
      '--mcp-relay.virtual-servers.one.members[0]=fast' --mcp-relay.virtual-servers.one.tool-prefix= ;;
    relay-traced-none) printf '%s\n' --mcp-relay.security.mode=none "$otlp" --management.tracing.sampling.probability=0.0 ;;
    relay-traced-all) printf '%s\n' --mcp-relay.security.mode=none "$otlp" --management.tracing.sampling.probability=1.0 ;;
    relay-api-key) printf '%s\n' --mcp-relay.security.mode=api-key '--mcp-relay.security.api-keys[0].client=bench' \
      "--mcp-relay.security.api-keys[0].key-sha256=$API_KEY_SHA256" '--mcp-relay.security.api-keys[0].servers[0]=*' ;;
    relay-jwt) printf '%s\n' --mcp-relay.security.mode=jwt \
      --mcp-relay.security.jwt.jwk-set-uri="http://127.0.0.1:$UPSTREAM_PORT/jwks.json" \
      --mcp-relay.security.jwt.audience=mcp-relay ;;
    *) echo "unknown target $1" >&2; exit 1 ;;
  esac
}
for target in "${TARGETS[@]}"; do
  case $target in nginx-proxy|bare) continue ;; esac
  [[ $target == b-* && -z $B_JAR ]] && { echo "$target needs B_REV" >&2; exit 1; }
  mapfile -t args < <(relay_args "$target")
  start_relay "$target" "${args[@]}"
  if [[ ${target#b-} == relay-5 ]] && ! grep -q bench-argument-injection "$WORK/$target.log"; then
    echo "the bench interceptors did not load in $target:" >&2; cat "$WORK/$target.log" >&2; exit 1
  fi
done

log "checking that every target answers the call with the upstream's result"
for target in "${TARGETS[@]}"; do check_answers "$target"; done

log "warming up every target for $JVM_WARMUP"
for target in "${TARGETS[@]}"; do one_run "$target" "$JVM_WARMUP" >/dev/null; done

# what reading the allocation counter allocates in each JVM itself: three readings with no load, the two differences
: >"$WORK/readings.txt"
for target in "${TARGETS[@]}"; do
  [ -n "${ALLOC_PORT[$target]:-}" ] || continue
  r0=$(allocated "$target"); r1=$(allocated "$target"); r2=$(allocated "$target")
  echo "$target $((${r1%% *} - ${r0%% *})) $((${r2%% *} - ${r1%% *})) ${r2##* }" >>"$WORK/readings.txt"
done

if [ -n "${PROFILE:-}" ]; then
  runs "$PROFILE" || { echo "PROFILE=$PROFILE is not one of the targets" >&2; exit 1; }
  profiler "${CPU_PID[$PROFILE]}" "start,$PROFILE_START"
fi
: >"$WORK/rounds.txt"
for round in $(seq 1 "$ROUNDS"); do
  log "round $round of $ROUNDS"
  for target in "${TARGETS[@]}"; do
    measured=$(one_run "$target" "$DURATION")
    echo "$round $target $measured" | tee -a "$WORK/rounds.txt" >&2
  done
done

if [ -n "${PROFILE:-}" ]; then
  profiler "${CPU_PID[$PROFILE]}" "stop,file=$WORK/profile.collapsed,$PROFILE_STOP"
  # per frame, the share of CPU samples with it on top of the stack, and anywhere on it (each frame once per stack)
  awk '
    { n = $NF; sub(/ [0-9]+$/, ""); samples += n; depth = split($0, frames, ";"); split("", seen)
      top[frames[depth]] += n
      for (i = 1; i <= depth; i++) if (!(frames[i] in seen)) { seen[frames[i]] = 1; incl[frames[i]] += n } }
    END {
      for (f in top) printf "top %.1f %s\n", 100 * top[f] / samples, f
      for (f in incl) printf "incl %.1f %s\n", 100 * incl[f] / samples, f
      printf "samples %d\n", samples
    }' "$WORK/profile.collapsed" >"$WORK/profile.txt"
  {
    echo "## Profile of $PROFILE (async-profiler, $PROFILE_WHAT over the rounds:" \
      "$(awk '$1 == "samples" { print $2 }' "$WORK/profile.txt") $PROFILE_SHARE)"
    echo
    echo "Sampling costs the recorded process a little: read $PROFILE's rows above with that in mind, and the shares below"
    echo "as where its $PROFILE_SHARE go (every thread, the JVM's own included)."
    echo
    echo "Top of stack, % of $PROFILE_SHARE:"
    echo
    echo '```'
    awk '$1 == "top" { print $2 "%  " $3 }' "$WORK/profile.txt" | sort -rn | sed -n 1,40p
    echo '```'
    echo
    echo "Relay methods anywhere on the stack (inclusive), % of $PROFILE_SHARE:"
    echo
    echo '```'
    awk '$1 == "incl" && $3 ~ /^dev\/mcprelay\// { print $2 "%  " $3 }' "$WORK/profile.txt" | sort -rn | sed -n 1,40p
    echo '```'
    echo
    echo "Library methods anywhere on the stack (inclusive, Reactor, Netty and the JDK left out), % of $PROFILE_SHARE:"
    echo
    echo '```'
    awk '$1 == "incl" && $3 ~ /^(org|com|io\/micrometer|ch)\// { print $2 "%  " $3 }' "$WORK/profile.txt" | sort -rn | sed -n 1,40p
    echo '```'
  } >"$WORK/profile.md"
fi

# JIT compilations from launch to the end of the rounds (steady state), per JVM target: jstat's count of methods compiled
: >"$WORK/compilations.txt"
for target in "${TARGETS[@]}"; do
  [ "$target" = nginx-proxy ] && continue
  echo "$target $(jstat -compiler "${CPU_PID[$target]}" | awk 'NR == 2 { print $1 }')" >>"$WORK/compilations.txt"
done
compilations() { awk -v t="$1" '$1 == t { print $2 }' "$WORK/compilations.txt"; }

# med TARGET COLUMN: the median of a column (3 req/s, 4 CPU us/request, 5 p50, 6 p99, 7 bytes allocated per request)
# over the rounds; nothing when the target has no such value ("-": nginx allocates in no JVM)
med() { awk -v t="$1" -v c="$2" '$2 == t && $c != "-" { print $c }' "$WORK/rounds.txt" | median; }
# bytes TARGET: the median bytes allocated per request, whole bytes
bytes() { local m; m=$(med "$1" 7); [ -z "$m" ] || printf '%.0f' "$m"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.2f", a / b }'; }
# unseen TARGET: threads that ended during the target's rounds before the counter read all they allocated
unseen() { awk -v t="$1" '$2 == t && $8 != "-" { n += $8 } END { print n + 0 }' "$WORK/rounds.txt"; }

mkdir -p bench/results
REPORT="bench/results/$(date +%Y-%m-%d-%H%M)-$(hostname -s)-cost.md"
{
  echo "# Cost per exchange: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(git rev-parse --short HEAD)"
  echo
  echo "bench/cost.sh: tools/call through each proxy to an nginx static upstream, wrk -c$CONCURRENCY for $DURATION per run,"
  echo "$ROUNDS interleaved rounds after $JVM_WARMUP of warm-up each; medians over the rounds. CPU is the proxy process's own"
  echo "utime + stime (for nginx, its one worker) per request; bytes allocated are what the JVM's threads allocated in"
  echo "the heap over the round (bench/allocation-counter, read before and after), per request."
  echo "$(java -version 2>&1 | head -1)."
  echo
  echo "| target | CPU µs per request | CPU vs bare | bytes allocated per request | bytes vs bare | req/s |" \
    "req/s vs bare | p50 ms | p99 ms | JIT compilations |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for target in "${TARGETS[@]}"; do
    target_bytes=$(bytes "$target")
    echo "| $target | $(med "$target" 4) | $(ratio "$(med "$target" 4)" "$(med bare 4)") | ${target_bytes:--} |" \
      "$(ratio "$target_bytes" "$(bytes bare)") | $(med "$target" 3) |" \
      "$(ratio "$(med "$target" 3)" "$(med bare 3)") |" \
      "$(med "$target" 5) | $(med "$target" 6) | $(compilations "$target") |"
  done
  echo
  unseen_threads=""
  for target in "${TARGETS[@]}"; do
    count=$(unseen "$target")
    [ -n "${ALLOC_PORT[$target]:-}" ] && [ "$count" != 0 ] && unseen_threads+=" $target $count;"
  done
  if [ -s "$WORK/readings.txt" ]; then
    echo "Reading the allocation counter ($(awk 'NR == 1 { print $4 }' "$WORK/readings.txt") counters) allocates in the"
    echo "JVM itself, which lands in a round's bytes: three readings with no load after the warm-up differed by"
    echo "$(awk '{ printf "%s%s %s and %s", (NR > 1 ? "; " : ""), $1, $2, $3 }' "$WORK/readings.txt") bytes."
    echo "Threads that ended during a round before the counter read all they allocated (their last bytes are missing):"
    echo "${unseen_threads:- none}."
    echo
  fi
  echo "The goals of issues 25 and 47 (47 keeps every goal of 25's and tightens two; a goal named by no issue is 25's),"
  echo "from this run:"
  echo
  echo "| ratio | value | goal |"
  echo "|---|---|---|"
  echo "| relay bytes allocated per request / bare's | $(ratio "$(bytes relay)" "$(bytes bare)") | ≤ 1.5 (issue 47) |"
  echo "| relay CPU / bare CPU | $(ratio "$(med relay 4)" "$(med bare 4)") | ≤ 1.3 (issue 47; 25: ≤ 1.5) |"
  echo "| relay req/s / bare req/s | $(ratio "$(med relay 3)" "$(med bare 3)") | ≥ 0.8 (issue 47; 25: ≥ 0.7) |"
  echo "| api-key CPU / none CPU | $(ratio "$(med relay-api-key 4)" "$(med relay 4)") | ≤ 1.1 |"
  echo "| jwt CPU / none CPU | $(ratio "$(med relay-jwt 4)" "$(med relay 4)") | ≤ 1.15 |"
  echo "| five interceptors CPU / none CPU | $(ratio "$(med relay-5 4)" "$(med relay 4)") | ≤ 1.1 (issues 25, 47) |"
  echo "| tools/call through a one-member virtual server CPU / the same call to the server directly" \
    "(MCP 2026-07-28) |" \
    "$(ratio "$(med relay-virtual 4)" "$(med relay-direct-2026 4)") | ≤ 1.3 (issue 47) |"
  echo "| access log on CPU / off CPU | $(ratio "$(med relay 4)" "$(med relay-no-log 4)") | ≤ 1.05 |"
  echo "| ten policies CPU / none CPU (issue 43) | $(ratio "$(med relay-policies 4)" "$(med relay 4)") | ≤ 1.1 |"
  echo "| traced (10%) CPU / none CPU | $(ratio "$(med relay-traced 4)" "$(med relay 4)") | ≤ 1.1 (issue 28) |"
  echo "| relay p99 / bare p99 | $(ratio "$(med relay 6)" "$(med bare 6)") | ≤ 1.5 |"
  echo "| relay JIT compilations / bare's, launch to the end of the rounds | $(ratio "$(compilations relay)" "$(compilations bare)") | ≤ 1.3 |"
  echo
  if [ -n "$B_JAR" ]; then
    echo "A/B: A is this tree ($(git describe --always --dirty)), B is $(git rev-parse --short "$B_REV"); B / A of each pair's medians:"
    echo
    echo "| pair | B / A CPU per request | B / A bytes allocated per request | B / A req/s | B / A p99 |"
    echo "|---|---|---|---|---|"
    for target in "${TARGETS[@]}"; do
      [[ $target == b-* ]] || continue
      a=${target#b-}
      echo "| $a | $(ratio "$(med "$target" 4)" "$(med "$a" 4)") | $(ratio "$(bytes "$target")" "$(bytes "$a")") |" \
        "$(ratio "$(med "$target" 3)" "$(med "$a" 3)") |" \
        "$(ratio "$(med "$target" 6)" "$(med "$a" 6)") |"
    done
    echo
  fi
  echo "Every round:"
  echo
  echo '```'
  echo "round target req/s cpu-us-per-request p50-ms p99-ms bytes-allocated-per-request threads-ended-unseen"
  cat "$WORK/rounds.txt"
  echo '```'
  if [ -n "${PROFILE:-}" ]; then echo; cat "$WORK/profile.md"; fi
} >"$REPORT"
cat "$REPORT"
echo "wrote $REPORT" >&2
