#!/usr/bin/env bash
# deploy/aot-cache.sh JAR DIR: lays the relay out as the container image runs it, with an AOT cache trained on it.
#
# Extracts the Spring Boot jar into DIR (DIR/mcp-relay.jar and DIR/lib/: classes load from plain jars), then runs the
# relay once as a training run under Java 25's AOT cache (JEP 483, 514, 515): the demo profile on a free loopback
# port, a few MCP sessions through it (initialize, tools/list, a JSON tools/call, an SSE tools/call, DELETE) and
# TRAINING_CALLS tools/call in one more session (the hot path's method profiles), then a
# graceful stop, at which the JVM writes DIR/mcp-relay.aot: the classes loaded and linked and the method profiles of
# that run. Started with the same flags as the training run (deploy/start-relay.sh does: Java refuses a cache whose
# --enable-native-access differs, and starts without it)
#   java -XX:AOTCache=DIR/mcp-relay.aot --enable-native-access=ALL-UNNAMED -jar DIR/mcp-relay.jar
# the relay starts with those classes already loaded and linked, and compiles its hot methods sooner. The cache is
# tied to this JDK build and these jars, at this path: build it where the relay runs (the Dockerfile does), and again
# after either changes. JAVA names the java to use (default: java on the PATH; it must be 25 or newer).
set -euo pipefail
JAR=$1
DIR=$2
JAVA=${JAVA:-java}
SESSIONS=${TRAINING_SESSIONS:-20}
CALLS=${TRAINING_CALLS:-2000}

rm -rf "$DIR"
"$JAVA" -Djarmode=tools -jar "$JAR" extract --destination "$DIR" >/dev/null
mv "$DIR/$(basename "$JAR")" "$DIR/mcp-relay.jar"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=$(( 20000 + RANDOM % 30000 ))
until port_free "$PORT"; do PORT=$(( 20000 + RANDOM % 30000 )); done

"$JAVA" -XX:AOTCacheOutput="$DIR/mcp-relay.aot" --enable-native-access=ALL-UNNAMED -jar "$DIR/mcp-relay.jar" --spring.profiles.active=demo \
  --server.port="$PORT" --server.address=127.0.0.1 --logging.level.root=WARN >"$DIR/training.log" 2>&1 &
RELAY=$!
trap 'kill "$RELAY" 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do port_free "$PORT" || break; sleep 0.1; done
port_free "$PORT" && { echo "aot-cache.sh: the training run did not listen; see $DIR/training.log" >&2; exit 1; }

# One HTTP/1.1 exchange on a fresh connection: METHOD PATH [BODY] [SESSION]; prints the response.
exchange() {
  local method=$1 path=$2 body=${3:-} session=${4:-} extra=""
  [ -n "$session" ] && extra="Mcp-Session-Id: $session"$'\r\n'"MCP-Protocol-Version: 2025-11-25"$'\r\n'
  exec 3<>"/dev/tcp/127.0.0.1/$PORT"
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$method" "$path" "$extra" "${#body}" "$body" >&3
  cat <&3
  exec 3>&-
}

for i in $(seq 1 "$SESSIONS"); do
  init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"aot-training","version":"1"}}}'
  session=$(exchange POST /mcp/demo "$init" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
  [ -n "$session" ] || { echo "aot-cache.sh: initialize through the training run failed" >&2; exit 1; }
  exchange POST /mcp/demo '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
  exchange POST /mcp/demo '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$session" >/dev/null
  exchange POST /mcp/demo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"training $i\"}}}" "$session" >/dev/null
  [ "$i" -le 3 ] && exchange POST /mcp/demo '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"countdown","arguments":{"from":1},"_meta":{"progressToken":"p"}}}' "$session" >/dev/null
  exchange DELETE /mcp/demo "" "$session" >/dev/null
done
# the hot path as a busy relay runs it: many tools/call in one session, so the cache's method profiles are of that path
session=$(exchange POST /mcp/demo "$init" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
exchange POST /mcp/demo '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
for i in $(seq 1 "$CALLS"); do
  exchange POST /mcp/demo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"call $i\"}}}" "$session" >/dev/null
done

kill -TERM "$RELAY"
wait "$RELAY" || true
trap - EXIT
[ -s "$DIR/mcp-relay.aot" ] || { echo "aot-cache.sh: the training run wrote no AOT cache; see $DIR/training.log" >&2; exit 1; }
