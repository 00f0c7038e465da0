#!/bin/sh
# deploy/start-relay.sh [ARGS...]: starts the relay as the container image does (its ENTRYPOINT), from the layout
# deploy/aot-cache.sh made in RELAY_HOME (default /app/relay), with the AOT cache, and with every jar in LOADER_PATH
# (default /app/plugins) on the class path: plugins, which register their interceptors by Spring Boot
# auto-configuration. The plugin jars go after the relay's own, so the cache trained without them still applies.
# JAVA names the java (default: java on the PATH); JAVA_OPTS adds JVM options; ARGS go to the relay (--spring...).
# A JVM whose heap is exhausted exits (-XX:+ExitOnOutOfMemoryError) rather than limp on with threads that died of it
# while its liveness probe still answers: the orchestrator restarts it. The relay's own budget for bodies
# (mcp-relay.max-buffered-bodies) keeps a flood of large requests from getting there.
set -eu
RELAY_HOME=${RELAY_HOME:-/app/relay}
LOADER_PATH=${LOADER_PATH:-/app/plugins}
export LOADER_PATH
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
exec "${JAVA:-java}" -XX:AOTCache="$RELAY_HOME/mcp-relay.aot" --enable-native-access=ALL-UNNAMED \
  -XX:MaxRAMPercentage=60 -XX:+ExitOnOutOfMemoryError ${JAVA_OPTS:-} -cp "$RELAY_HOME/mcp-relay.jar:$LOADER_PATH/*" dev.mcprelay.McpRelayApplication "$@"
