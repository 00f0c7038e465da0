#!/usr/bin/env bash
# The mcp-relay soak, in one command: bench/soak.sh   (DURATION=3m bench/soak.sh to try it)
#
# Starts, on 127.0.0.1: a real MCP server written with the official TypeScript SDK (bench/soak-upstream.mjs, from
# interop/node_modules, installed with `npm ci` when missing), and one relay from its jar as the image sizes it (no
# -Xmx: -XX:MaxRAMPercentage=60) with the servers `soak` (JSON answers) and `soak-sse` (SSE answers), both denying the
# tool `secret`, and the virtual server `both` over the two. bench/soak-driver.mjs then sends mixed traffic through the
# relay for DURATION, every kind at once at a bounded rate (about 35 requests/s: JSON and SSE tools/call, SSE calls
# dropped mid-stream, session lifecycles with GET streams dropped mid-stream or ended by DELETE, a denied tool, an
# unknown server, a malformed body, virtual-server sessions). Every INTERVAL it samples the relay: resident size
# (VmRSS), threads, open file descriptors, heap after a full GC (it forces one: jcmd GC.run, then the heap in use from
# /actuator/prometheus), direct buffers, the JVM's native memory (NMT: total and "Other", where Netty's direct
# arenas are counted), open streams (mcp_relay_streams_active), and the sessions the upstream holds. After the traffic
# it keeps sampling for COOLDOWN: streams, sessions and descriptors must come back to where they were before it.
# Writes bench/results/<date>-<time>-<host>-soak.md (samples, a verdict per series, counts per kind of traffic) and
# stops everything it started. Exit status 1 when a verdict fails or a request met an unexpected error.
# Knobs (environment): DURATION (30m; s, m or h), INTERVAL (30s), WARMUP (DURATION/6, at least 60 s, at most 5 m),
# COOLDOWN (90s), RATE_SCALE (1: multiplies every rate), JAVA (Temurin 25 when installed, as the image runs it),
# JAVA_OPTS (-XX:MaxRAMPercentage=60), SKIP_BUILD (1: use the jar already built), KEEP (1: keep the work directory).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD

seconds() { # 90, 90s, 3m, 1h -> seconds
  local v=$1
  case $v in
    *h) echo $(( ${v%h} * 3600 )) ;;
    *m) echo $(( ${v%m} * 60 )) ;;
    *s) echo "${v%s}" ;;
    *) echo "$v" ;;
  esac
}

DURATION_S=$(seconds "${DURATION:-30m}")
INTERVAL_S=$(seconds "${INTERVAL:-30s}")
if [ -n "${WARMUP:-}" ]; then WARMUP_S=$(seconds "$WARMUP"); else
  WARMUP_S=$(( DURATION_S / 6 )); [ "$WARMUP_S" -lt 60 ] && WARMUP_S=60; [ "$WARMUP_S" -gt 300 ] && WARMUP_S=300
fi
COOLDOWN_S=$(seconds "${COOLDOWN:-90s}")
RATE_SCALE=${RATE_SCALE:-1}
JAVA25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
if [ -z "${JAVA:-}" ]; then if [ -x "$JAVA25" ]; then JAVA=$JAVA25; else JAVA=java; fi; fi
JAVA_HOME_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")
JCMD=$JAVA_HOME_DIR/bin/jcmd
JAVA_OPTS=${JAVA_OPTS:--XX:MaxRAMPercentage=60}
JAVA_MAJOR=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2}')
EXTRA_OPTS=(-XX:NativeMemoryTracking=summary)
# as deploy/start-relay.sh runs it: Netty loads its native transport without a warning
[ "${JAVA_MAJOR%%.*}" -ge 22 ] && EXTRA_OPTS+=(--enable-native-access=ALL-UNNAMED)

# shellcheck source=bench/lib.sh
. bench/lib.sh
trap 'exit 130' INT TERM

command -v node >/dev/null || { echo "the soak needs Node.js 18+ on the PATH" >&2; exit 1; }
[ -x "$JCMD" ] || { echo "no jcmd beside $JAVA ($JCMD): the soak forces a GC with it" >&2; exit 1; }

if [ ! -d interop/node_modules/@modelcontextprotocol/sdk ] || [ interop/package-lock.json -nt interop/node_modules/.package-lock.json ]; then
  log "installing the MCP TypeScript SDK (npm ci in interop/)"
  (cd interop && npm ci --no-audit --no-fund >/dev/null)
fi
if [ "${SKIP_BUILD:-0}" != 1 ] || ! ls relay/target/mcp-relay-*.jar >/dev/null 2>&1; then
  log "building the relay"
  ./mvnw -q -B package -DskipTests -pl relay -am
fi
JAR=$(ls "$ROOT"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)

log "starting the upstream and the relay"
UPSTREAM_PORT=$(free_port)
PORT=$UPSTREAM_PORT node bench/soak-upstream.mjs 2>"$WORK/upstream.log" &
PIDS+=($!)
wait_port "$UPSTREAM_PORT" 90
RELAY_PORT=$(free_port)
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
"$JAVA" $JAVA_OPTS "${EXTRA_OPTS[@]}" -jar "$JAR" \
  --server.port="$RELAY_PORT" --server.address=127.0.0.1 \
  --mcp-relay.security.mode=none \
  --mcp-relay.servers.soak.url="http://127.0.0.1:$UPSTREAM_PORT/json/mcp" \
  --mcp-relay.servers.soak.tools.deny[0]=secret \
  --mcp-relay.servers.soak-sse.url="http://127.0.0.1:$UPSTREAM_PORT/sse/mcp" \
  --mcp-relay.servers.soak-sse.tools.deny[0]=secret \
  --mcp-relay.virtual-servers.both.members[0]=soak \
  --mcp-relay.virtual-servers.both.members[1]=soak-sse \
  >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
PIDS+=($RELAY_PID)
wait_port "$RELAY_PORT" 90
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$RELAY_PORT/actuator/health/readiness" >/dev/null && break; sleep 0.2; done
PROM="http://127.0.0.1:$RELAY_PORT/actuator/prometheus"
MAX_HEAP=$("$JCMD" "$RELAY_PID" VM.flags | grep -o -- '-XX:MaxHeapSize=[0-9]*' | head -1 | cut -d= -f2)

# one sample, as a tab-separated line:
# t phase rss_kb threads fds heap_after_gc heap_committed nonheap direct_bytes direct_count nmt_total_kb nmt_other_kb
# streams upstream_sessions rss_after_gc_kb
sample() {
  local t=$1 phase=$2 rss threads fds scrape heap nmt up rss_gc
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$RELAY_PID/status")
  threads=$(awk '/^Threads:/ {print $2}' "/proc/$RELAY_PID/status")
  fds=$(find "/proc/$RELAY_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  "$JCMD" "$RELAY_PID" GC.run >/dev/null
  # G1 gives the memory a full GC freed back to the OS concurrently, soon after it (as bench/run.sh waits for it)
  sleep 3
  rss_gc=$(awk '/^VmRSS:/ {print $2}' "/proc/$RELAY_PID/status")
  scrape=$(curl -sf "$PROM")
  # the heap in use right after the forced full GC (nothing allocates much in between at this rate; the scrape's own
  # garbage is a few hundred KB)
  heap=$(awk '/^jvm_memory_used_bytes\{area="heap"/ { s += $NF } END { printf "%.0f", s }' <<<"$scrape")
  nmt=$("$JCMD" "$RELAY_PID" VM.native_memory summary 2>/dev/null \
    | awk '/^Total:/ { match($0, /committed=[0-9]+KB/); t = substr($0, RSTART + 10, RLENGTH - 12) }
           /^-[ ]+Other \(/ { match($0, /committed=[0-9]+KB/); o = substr($0, RSTART + 10, RLENGTH - 12) }
           END { printf "%s\t%s", (t == "" ? "-" : t), (o == "" ? "-" : o) }')
  up=$(curl -sf "http://127.0.0.1:$UPSTREAM_PORT/stats" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).sessions))')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$phase" "$rss" "$threads" "$fds" "$heap" \
    "$(awk '/^jvm_memory_committed_bytes\{area="heap"/ { s += $NF } END { printf "%.0f", s }' <<<"$scrape")" \
    "$(awk '/^jvm_memory_used_bytes\{area="nonheap"/ { s += $NF } END { printf "%.0f", s }' <<<"$scrape")" \
    "$(awk '/^jvm_buffer_memory_used_bytes\{id="direct"\}/ { printf "%.0f", $NF }' <<<"$scrape")" \
    "$(awk '/^jvm_buffer_count_buffers\{id="direct"\}/ { printf "%.0f", $NF }' <<<"$scrape")" \
    "$nmt" \
    "$(awk '/^mcp_relay_streams_active\{/ { s += $NF } END { printf "%.0f", s }' <<<"$scrape")" \
    "$up" "$rss_gc" | tee -a "$WORK/samples.tsv" >&2
  printf '%s\n' "$scrape" >"$WORK/last-scrape.txt"
}

now() { echo $(( $(date +%s) - START )); }

# what the relay exports that a soak could watch: recorded in the report
curl -sf "$PROM" >"$WORK/first-scrape.txt"
START=$(date +%s)
: >"$WORK/samples.tsv"
log "baseline (idle relay)"
sample 0 baseline
log "traffic for ${DURATION_S}s, a sample every ${INTERVAL_S}s (warm-up ${WARMUP_S}s)"
RELAY="http://127.0.0.1:$RELAY_PORT" DURATION_S=$DURATION_S COUNTS="$WORK/counts.json" RATE_SCALE=$RATE_SCALE \
  node bench/soak-driver.mjs 2>"$WORK/driver.log" &
DRIVER_PID=$!
PIDS+=($DRIVER_PID)
TRAFFIC_START=$(now)
next=$INTERVAL_S
while kill -0 "$DRIVER_PID" 2>/dev/null; do
  if [ "$(now)" -ge "$((TRAFFIC_START + next))" ]; then
    phase=traffic; [ "$next" -lt "$WARMUP_S" ] && phase=warmup
    sample "$(( $(now) - TRAFFIC_START ))" "$phase"
    next=$((next + INTERVAL_S))
  fi
  kill -0 "$RELAY_PID" 2>/dev/null || { echo "the relay died:" >&2; tail -50 "$WORK/relay.log" >&2; exit 1; }
  sleep 1
done
DRIVER_RC=0; wait "$DRIVER_PID" || DRIVER_RC=$?
TRAFFIC_END=$(( $(now) - TRAFFIC_START ))
cat "$WORK/driver.log" >&2
log "cool-down for ${COOLDOWN_S}s"
sample "$TRAFFIC_END" stopped
cool=0
while [ "$cool" -lt "$COOLDOWN_S" ]; do
  step=$INTERVAL_S; [ $((cool + step)) -gt "$COOLDOWN_S" ] && step=$((COOLDOWN_S - cool))
  sleep "$step"; cool=$((cool + step))
  sample "$(( $(now) - TRAFFIC_START ))" cooldown
done

# ---- verdicts
# flat SERIES_COLUMN MARGIN: over the traffic samples after warm-up, reference = the first, last third = the samples
# from two thirds of the way on; flat when the last third's max is within max(10% of the reference, MARGIN) of it.
# Prints "ref max_last_third growth slope_per_hour verdict"
flat() {
  awk -F'\t' -v c="$1" -v margin="$2" '
    $2 == "traffic" { t[++n] = $1; v[n] = $c }
    END {
      if (n < 3) { print "- - - - too_few_samples"; exit }
      ref = v[1]; from = int((2 * n) / 3) + 1; if (from > n) from = n
      max = v[from]; for (i = from; i <= n; i++) if (v[i] > max) max = v[i]
      allow = ref * 0.10; if (margin > allow) allow = margin
      # least-squares slope over the post-warm-up samples, per hour
      for (i = 1; i <= n; i++) { sx += t[i]; sy += v[i]; sxx += t[i] * t[i]; sxy += t[i] * v[i] }
      d = n * sxx - sx * sx; slope = (d == 0) ? 0 : (n * sxy - sx * sy) / d * 3600
      printf "%s %s %s %.0f %s\n", ref, max, max - ref, slope, (max - ref <= allow) ? "flat" : "GREW"
    }' "$WORK/samples.tsv"
}
# back COLUMN MARGIN: the last cool-down sample against the baseline (the idle relay before any traffic)
back() {
  awk -F'\t' -v c="$1" -v margin="$2" '
    $2 == "baseline" { base = $c } $2 == "cooldown" || $2 == "stopped" { last = $c }
    END { printf "%s %s %s %s\n", base, last, last - base, (last - base <= margin) ? "back" : "NOT_BACK" }' "$WORK/samples.tsv"
}
mib() { awk -v b="$1" -v d="${2:-1048576}" 'BEGIN { if (b == "-" || b == "") print "-"; else printf "%.1f", b / d }'; }

FAILED=0
verdict_row() { # label column margin [unit-divisor (MiB)] [info: shown, not failed on]
  local ref max growth slope v
  read -r ref max growth slope v <<<"$(flat "$2" "$3")"
  [ "$v" = flat ] || [ "${5:-}" = info ] || FAILED=1
  [ "${5:-}" = info ] && [ "$v" = GREW ] && v="GREW (not judged)"
  local unit=${4:-1048576}
  echo "| $1 | $(mib "$ref" "$unit") | $(mib "$max" "$unit") | $(mib "$growth" "$unit") | $(mib "$slope" "$unit") | $(mib "$3" "$unit") | **$v** |"
}
back_row() { # label column margin
  local base last diff v
  read -r base last diff v <<<"$(back "$2" "$3")"
  [ "$v" = back ] || FAILED=1
  echo "| $1 | $base | $last | $diff | $3 | **$v** |"
}

# counts per kind of traffic, from the driver's file
COUNTS_TABLE=$(node -e '
  const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const rows = [];
  let unexpected = 0;
  for (const [kind, k] of Object.entries(c.counts)) {
    unexpected += k.unexpected;
    const extra = Object.entries(k).filter(([key]) => !["requests", "ok", "rejected_as_expected", "unexpected"].includes(key))
      .map(([key, n]) => `${key} ${n}`).join(", ");
    rows.push(`| ${kind} | ${k.requests} | ${k.ok} | ${k.rejected_as_expected} | ${k.unexpected} | ${extra} |`);
  }
  console.log(rows.join("\n"));
  console.log("UNEXPECTED " + unexpected + " FINAL " + c.final);
  for (const [kind, s] of Object.entries(c.samples)) for (const line of s) console.log("SAMPLE " + kind + ": " + line);
' "$WORK/counts.json")
UNEXPECTED=$(awk '/^UNEXPECTED/ {print $2}' <<<"$COUNTS_TABLE")
DRIVER_FINAL=$(awk '/^UNEXPECTED/ {print $4}' <<<"$COUNTS_TABLE")
[ "$UNEXPECTED" = 0 ] && [ "$DRIVER_FINAL" = true ] && [ "$DRIVER_RC" = 0 ] || FAILED=1
relay_count() { awk -v f="$1" '/^mcp_relay_requests_total\{/ && $0 ~ f { s += $NF } END { printf "%.0f", s }' "$WORK/last-scrape.txt"; }
RELAY_FAILED=$(relay_count 'outcome="failed"')
[ "$RELAY_FAILED" = 0 ] || FAILED=1
RELAY_ERRORS=$(grep -c ' ERROR ' "$WORK/relay.log" || true)
[ "$RELAY_ERRORS" = 0 ] || FAILED=1
UPSTREAM_STATS=$(curl -sf "http://127.0.0.1:$UPSTREAM_PORT/stats")
SECRET_CALLS=$(node -e 'console.log(JSON.parse(process.argv[1]).secretCalls)' "$UPSTREAM_STATS")
[ "$SECRET_CALLS" = 0 ] || FAILED=1

report() {
  local file; file="bench/results/$(date +%F-%H%M)-$(hostname -s)-soak.md"
  {
    echo "# mcp-relay soak, $(date -u '+%F %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores ($(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')), $(free -g | awk '/Mem:/ {print $2}') GiB,"
    echo "shared; everything on 127.0.0.1. Relay: \`$(basename "$JAR")\` on $("$JAVA" -version 2>&1 | head -1), \`$JAVA_OPTS ${EXTRA_OPTS[*]}\`"
    echo "(no -Xmx; the heap's ceiling is $((MAX_HEAP / 1048576)) MB), default configuration (access log on), security mode none."
    echo "Upstream: bench/soak-upstream.mjs (MCP TypeScript SDK, stateful sessions). Driver: bench/soak-driver.mjs, node $(node -v)."
    echo
    echo "Traffic for $((DURATION_S / 60)) min $((DURATION_S % 60)) s (warm-up: the first ${WARMUP_S} s), then ${COOLDOWN_S} s without traffic; a sample every ${INTERVAL_S} s."
    echo "RATE_SCALE $RATE_SCALE. Driver exit status $DRIVER_RC."
    echo
    echo "## Verdicts"
    echo
    echo "**Flat after warm-up**: over the samples taken under traffic after the warm-up, the reference is the first of"
    echo "them; the series is flat when the largest sample of the last third is within 10% of the reference or within the"
    echo "margin, whichever is larger. The slope (least squares over the same samples) is there to show a creep too small"
    echo "to fail the rule. Heap after GC: \`jcmd GC.run\` (a full GC), then the sum of \`jvm_memory_used_bytes{area=\"heap\"}\`"
    echo "from /actuator/prometheus (\`jvm_gc_live_data_size_bytes\` stays 0 on this G1 heap, which never needs an old"
    echo "collection of its own at this rate, so it cannot be used). Every sample reads the resident size, threads and"
    echo "descriptors, forces that GC, waits 3 s (G1 returns freed memory to the OS concurrently) and reads the resident"
    echo "size again and the rest. The resident size after GC is the judged one: with the heap shrunk to its live data"
    echo "a growth in it is native memory (direct buffers, threads, metaspace, code) or live heap. The resident size"
    echo "between GCs moves with how far G1 grew the heap since the last one (a young-generation resize of 32 MiB is"
    echo "common here): it is shown, and its verdict is not counted."
    echo
    echo "| series (MiB unless said) | reference | max of last third | growth | slope per hour | margin | verdict |"
    echo "|---|---|---|---|---|---|---|"
    verdict_row "resident size after GC (VmRSS, 3 s after the full GC)" 15 16384 1024
    verdict_row "resident size between GCs (VmRSS before the sample's GC)" 3 16384 1024 info
    verdict_row "heap after GC" 6 4194304
    verdict_row "non-heap used (metaspace, code)" 8 4194304
    verdict_row "direct buffers (jvm_buffer_memory_used_bytes{id=\"direct\"})" 9 4194304
    # NMT's total holds the committed heap and transient arenas (the JIT's, the GC's): one 30-minute run saw it jump
    # 24 MiB for a single sample with the resident size unmoved; shown, not judged (NMT Other and the RSS are)
    verdict_row "native memory committed (NMT total; transient arenas: not judged)" 11 16384 1024 info
    verdict_row "NMT Other (Unsafe/Netty direct memory)" 12 4096 1024
    verdict_row "threads (count)" 4 2 1
    verdict_row "open file descriptors (count)" 5 20 1
    echo
    echo "**Back to baseline**: the last sample after the traffic stopped against the idle relay before any traffic."
    echo
    echo "| series | before traffic | after the cool-down | difference | margin | verdict |"
    echo "|---|---|---|---|---|---|"
    back_row "open file descriptors" 5 10
    back_row "open streams (mcp_relay_streams_active, all servers)" 13 0
    back_row "sessions the upstream holds (the relay's sessions with it)" 14 0
    echo
    echo "## Errors"
    echo
    echo "- unexpected errors seen by the driver (anything but the deliberate rejections): **$UNEXPECTED**"
    echo "- requests the relay counted as \`outcome=\"failed\"\`: **$RELAY_FAILED**"
    echo "- ERROR lines in the relay's log: **$RELAY_ERRORS** (WARN lines: $(grep -c ' WARN ' "$WORK/relay.log" || true))"
    echo "- calls of the denied tool that reached the upstream: **$SECRET_CALLS**"
    echo
    echo "## Requests per kind of traffic (driver)"
    echo
    echo "| kind | requests | answered as expected | rejected as expected | unexpected | detail |"
    echo "|---|---|---|---|---|---|"
    grep '^|' <<<"$COUNTS_TABLE"
    if grep -q '^SAMPLE' <<<"$COUNTS_TABLE"; then
      echo
      echo "First unexpected errors per kind:"
      echo
      grep '^SAMPLE' <<<"$COUNTS_TABLE" | sed 's/^SAMPLE /- /'
    fi
    echo
    echo "The relay's own count (\`mcp_relay_requests_total\` at the end, each virtual-server request counted again under"
    echo "its members): forwarded $(relay_count 'outcome="forwarded"'), rejected $(relay_count 'outcome="rejected"'),"
    echo "client_error $(relay_count 'outcome="client_error"'), failed $RELAY_FAILED. Upstream: \`$UPSTREAM_STATS\`."
    echo
    echo "## Samples"
    echo
    echo "t is seconds since the traffic started; heap after GC, committed heap, non-heap and direct in MiB; RSS and NMT in MiB."
    echo
    echo "| t (s) | phase | RSS before GC | RSS after GC | heap after GC | heap committed | non-heap | direct (buffers) | NMT total | NMT Other | threads | fds | streams | upstream sessions |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    awk -F'\t' '{
      nmt = ($11 == "-") ? "-" : sprintf("%.1f", $11 / 1024); other = ($12 == "-") ? "-" : sprintf("%.1f", $12 / 1024)
      printf "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f (%s) | %s | %s | %s | %s | %s | %s |\n",
        $1, $2, $3 / 1024, $15 / 1024, $6 / 1048576, $7 / 1048576, $8 / 1048576, $9 / 1048576, $10, nmt, other, $4, $5, $13, $14 }' "$WORK/samples.tsv"
    echo
    echo "## What the relay exports for this"
    echo
    echo "Session and stream gauges in /actuator/prometheus: $(grep -o '^mcp_relay_s[a-z_]*' "$WORK/last-scrape.txt" | sort -u | tr '\n' ' ')"
    echo "(\`mcp_relay_sessions_bridged\` exists only for \`transport: sse\` servers; the relay keeps no state for Streamable"
    echo "HTTP sessions, and has no gauge for the virtual-server sessions in its memory store: the sessions column is the"
    echo "upstream's count, each relay session's upstream session, which ends only when the relay forwards its DELETE)."
    echo "Netty allocator gauges: $(grep -c -i '^[a-z_]*netty' "$WORK/last-scrape.txt" || true) exported (none: Reactor Netty's metrics are off), hence NMT."
  } >"$file"
  log "report: $file"
  cat "$file"
}
report
[ "$FAILED" = 0 ] || { echo "the soak found a problem (see the report)" >&2; exit 1; }
