#!/usr/bin/env bash
# bench/reload.sh: what a configuration reload costs with a large configuration (issue 44: "a reload with 100 servers
# and 1,000 keys applies in under a second").
#
# Starts the packaged relay on 127.0.0.1 in security mode api-key with a generated configuration (bench/reload-config.py):
# SERVERS servers (each a URL and a header), KEYS API keys (their SHA-256 hashes; each opens one server, the first also
# the actuator), read from a mounted folder as in Kubernetes (application.yml a link into ..data, itself a link the
# kubelet swaps). Then ROUNDS times, one server's header changed and one key revoked (each round a new server and a new
# key, so that every reload changes exactly that), two ways:
#   file      the new file written beside the old and ..data swapped to it in one rename, as the kubelet does; timed
#             from that rename to the relay's log line of the applied reload (its own timestamp), so it includes the
#             file watcher's wait for the folder to be quiet (ConfigurationFileWatcher.DEBOUNCE, 300 ms);
#   actuator  the file edited the same way, then POST /actuator/reload timed by curl (the watcher, triggered too, finds
#             the configuration already applied: "unchanged"); here the reload itself, with no debounce;
# and each round's reload is checked to be applied and counted (mcp_relay_config_reloads_total{outcome="applied"}), and
# the revoked key to get 401. The report gives every round and the median of each way, and the time the relay's log
# line says the reload took itself ("applied in N ms (M ms of CPU)": the CPU time of the thread that applied it, which
# other processes on a loaded machine do not lengthen).
# Writes bench/results/<date>-<time>-<host>-reload.md. Knobs (environment): SERVERS (100), KEYS (1000), ROUNDS (10),
# WARMUP (5: reloads before the measured ones, not reported), BUILD (1; 0 uses the jar relay/target holds).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SERVERS=${SERVERS:-100}
KEYS=${KEYS:-1000}
ROUNDS=${ROUNDS:-10}
WARMUP=${WARMUP:-5}
# shellcheck source=bench/lib.sh
. bench/lib.sh

if [ "${BUILD:-1}" = 1 ]; then
  log "building the relay"
  ./mvnw -q -B package -DskipTests -pl relay -am
fi
JAR=$(ls "$ROOT"/relay/target/mcp-relay-*.jar | grep -v '\.original$' | head -1)

MOUNT=$WORK/mount
mkdir -p "$MOUNT"
# mount ROUND: the configuration of ROUND (0: as the relay starts) in a new folder, ..data swapped to it in one rename;
# prints the time of the rename (seconds since the epoch, to the microsecond)
mount_round() {
  local dir="$MOUNT/..round-$1"
  mkdir -p "$dir"
  python3 bench/reload-config.py "$SERVERS" "$KEYS" "$1" >"$dir/application.yml"
  ln -sfn "..round-$1" "$MOUNT/..data.tmp"
  [ -e "$MOUNT/application.yml" ] || ln -s "..data/application.yml" "$MOUNT/application.yml"
  python3 -c 'import os, sys, time; os.rename(sys.argv[1], sys.argv[2]); print("%.6f" % time.time())' \
    "$MOUNT/..data.tmp" "$MOUNT/..data"
}
mount_round 0 >/dev/null

PORT=$(free_port)
ADMIN_KEY=$(python3 bench/reload-config.py --key 0)
log "starting the relay: $SERVERS servers, $KEYS API keys"
java -Xmx1g -jar "$JAR" --server.port="$PORT" --server.address=127.0.0.1 \
  --spring.config.additional-location="file:$MOUNT/application.yml" \
  --logging.level.root=WARN --logging.level.dev.mcprelay.live=INFO >"$WORK/relay.log" 2>&1 &
RELAY_PID=$!
PIDS+=("$RELAY_PID")
for _ in $(seq 1 1800); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  kill -0 "$RELAY_PID" 2>/dev/null || { echo "the relay did not start:" >&2; grep -v '^\s*at ' "$WORK/relay.log" | head -30 >&2; exit 1; }
  sleep 0.1
done

applied_count() {
  curl -s -H "X-Api-Key: $ADMIN_KEY" "http://127.0.0.1:$PORT/actuator/prometheus" \
    | awk '/^mcp_relay_config_reloads_total\{.*outcome="applied"/ { print int($NF) }'
}
# applied_lines: how many reloads the log says were applied
applied_lines() { grep -c 'Configuration reload .* applied' "$WORK/relay.log" || true; }
# await_applied COUNT: until the log holds COUNT applied reloads (30 s at most); prints the last one's line
await_applied() {
  for _ in $(seq 1 3000); do
    if [ "$(applied_lines)" -ge "$1" ]; then
      grep 'Configuration reload .* applied' "$WORK/relay.log" | sed -n "$1p"
      return
    fi
    sleep 0.01
  done
  echo "no applied reload number $1 within 30 s" >&2
  tail -30 "$WORK/relay.log" >&2
  exit 1
}
# epoch LOG-LINE: the time the line was logged (Spring Boot's ISO-8601 timestamp), seconds since the epoch
epoch() {
  python3 -c 'import sys, datetime; print("%.6f" % datetime.datetime.fromisoformat(sys.argv[1]).timestamp())' \
    "$(awk '{ print $1 }' <<<"$1")"
}
# took LOG-LINE: the reload's own time, as the line says it
took() { sed -n 's/.* applied in \([0-9]*\) ms (\(-*[0-9]*\) ms of CPU).*/\1 (\2 CPU)/p' <<<"$1"; }
# revoked ROUND: the status the key ROUND revoked now gets
revoked() {
  curl -s -o /dev/null -w '%{http_code}' -X POST -H "X-Api-Key: $(python3 bench/reload-config.py --key "$1")" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":1,"method":"ping"}' "http://127.0.0.1:$PORT/mcp/s$(printf '%03d' $(( $1 % SERVERS )))"
}

ROWS=()
FILE_MS=()
ACTUATOR_MS=()
round=0
total=$(( WARMUP + ROUNDS ))
log "$WARMUP warm-up reloads, then $ROUNDS measured, each way"
for i in $(seq 1 "$total"); do
  # the file way
  round=$((round + 1))
  before=$(applied_lines)
  written=$(mount_round "$round")
  line=$(await_applied $((before + 1)))
  file_ms=$(python3 -c "print('%.0f' % ((float('$(epoch "$line")') - float('$written')) * 1000))")
  file_took=$(took "$line")
  status=$(revoked "$round")
  [ "$status" = 401 ] || { echo "the key revoked in round $round got $status, not 401" >&2; exit 1; }
  # the actuator way
  round=$((round + 1))
  before=$(applied_lines)
  mount_round "$round" >/dev/null
  answer=$(curl -s -w '\n%{time_total}' -X POST -H "X-Api-Key: $ADMIN_KEY" "http://127.0.0.1:$PORT/actuator/reload")
  seconds=${answer##*$'\n'}
  answer=${answer%$'\n'*}
  # the watcher may have read the file first: then the actuator finds it unchanged, and this round is the watcher's
  if [[ $answer == *'"outcome":"applied"'* ]]; then
    line=$(await_applied $((before + 1)))
    actuator_ms=$(python3 -c "print('%.0f' % ($seconds * 1000))")
    actuator_took=$(took "$line")
  else
    await_applied $((before + 1)) >/dev/null
    actuator_ms="-"
    actuator_took="-"
  fi
  status=$(revoked "$round")
  [ "$status" = 401 ] || { echo "the key revoked in round $round got $status, not 401" >&2; exit 1; }
  if [ "$i" -gt "$WARMUP" ]; then
    FILE_MS+=("$file_ms")
    [ "$actuator_ms" = - ] || ACTUATOR_MS+=("$actuator_ms")
    ROWS+=("| $((i - WARMUP)) | $file_ms | $file_took | $actuator_ms | $actuator_took |")
  fi
done
counted=$(applied_count)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
REPORT="bench/results/$(date -u +%Y-%m-%d-%H%M)-$(hostname -s)-reload.md"
{
  echo "# Reload cost, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname -s)"
  echo
  echo "Revision $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- relay || echo ' (with uncommitted changes)'); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; Java $(java -version 2>&1 | head -1 | cut -d'"' -f2)."
  echo "$SERVERS servers, $KEYS API keys (mode api-key); each reload changes one server's header and revokes one key."
  echo "$WARMUP warm-up reloads each way before these; $counted reloads applied in all (mcp_relay_config_reloads_total)."
  echo
  echo "| round | file: rename to applied (ms) | its reload alone: ms (ms of CPU) | actuator: POST /actuator/reload (ms) | its reload alone: ms (ms of CPU) |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "Median: file $(printf '%s\n' "${FILE_MS[@]}" | median) ms (the watcher waits 300 ms for the folder to be quiet), actuator $(printf '%s\n' "${ACTUATOR_MS[@]}" | median) ms."
} >"$REPORT"
cat "$REPORT"
echo "written to $REPORT" >&2
