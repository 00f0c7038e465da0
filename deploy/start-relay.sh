#!/bin/sh
# deploy/start-relay.sh [ARGS...]: starts the relay as the container image does (its ENTRYPOINT), from the layout
# deploy/aot-cache.sh made in RELAY_HOME (default /app/relay), with the AOT cache, and with every jar in LOADER_PATH
# (default /app/plugins) on the class path: plugins, which register their interceptors by Spring Boot
# auto-configuration. The plugin jars go after the relay's own, so the cache trained without them still applies.
# JAVA names the java (default: java on the PATH); JAVA_OPTS adds JVM options, after the script's own, so that an
# option given there wins; ARGS go to the relay (--spring...).
# A JVM whose heap is exhausted exits (-XX:+ExitOnOutOfMemoryError) rather than limp on with threads that died of it
# while its liveness probe still answers: the orchestrator restarts it. The relay's own budget for bodies
# (mcp-relay.max-buffered-bodies) keeps a flood of large requests from getting there.
# Memory: the heap takes 60% of the container's memory limit (-XX:MaxRAMPercentage=60) and Netty's direct buffers
# (what the relay reads from sockets, and what it handed to a client's connection that the client has not taken yet)
# DIRECT_MEMORY_PERCENT of it (default 15), as -XX:MaxDirectMemorySize: without it the JVM lets direct memory grow as
# large as the heap, so heap and buffers could take 120% of the limit, and the kernel kills the container (slow
# readers of large answers took the relay past a 700 MB limit). The remaining 25% is the JVM's own memory (classes,
# compiled code, threads, the collector) and the kernel's socket buffers, which the limit counts too. The limit is
# read from the memory cgroup (v2 memory.max, v1 memory.limit_in_bytes, under CGROUP_ROOT, default /sys/fs/cgroup);
# without one, the machine's memory (/proc/meminfo), which is what -XX:MaxRAMPercentage reads then too.
set -eu
RELAY_HOME=${RELAY_HOME:-/app/relay}
LOADER_PATH=${LOADER_PATH:-/app/plugins}
CGROUP_ROOT=${CGROUP_ROOT:-/sys/fs/cgroup}
DIRECT_MEMORY_PERCENT=${DIRECT_MEMORY_PERCENT:-15}
export LOADER_PATH

# The memory this process may use, in whole megabytes: the cgroup's limit when it has one, else the machine's (a v1
# cgroup without a limit says so with a number near 2^63, larger than the machine).
memory_limit_mb() {
  machine=$(awk '/^MemTotal:/ { print int($2 / 1024); exit }' /proc/meminfo 2>/dev/null || true)
  limit=
  if [ -r "$CGROUP_ROOT/memory.max" ]; then
    limit=$(cat "$CGROUP_ROOT/memory.max")
  elif [ -r "$CGROUP_ROOT/memory/memory.limit_in_bytes" ]; then
    limit=$(cat "$CGROUP_ROOT/memory/memory.limit_in_bytes")
  fi
  case "$limit" in
    ''|max|*[!0-9]*) echo "$machine"; return ;;
  esac
  limit=$(( limit / 1048576 ))
  if [ -n "$machine" ] && [ "$machine" -lt "$limit" ]; then
    echo "$machine"
  else
    echo "$limit"
  fi
}

case "$DIRECT_MEMORY_PERCENT" in
  ''|*[!0-9]*) echo "start-relay.sh: DIRECT_MEMORY_PERCENT must be a whole number, not '$DIRECT_MEMORY_PERCENT'" >&2; exit 2 ;;
esac
LIMIT_MB=$(memory_limit_mb)
DIRECT_MEMORY=
if [ -n "$LIMIT_MB" ]; then
  # at least 32 MB, for the buffers the event loops read into
  DIRECT_MB=$(( LIMIT_MB * DIRECT_MEMORY_PERCENT / 100 ))
  if [ "$DIRECT_MB" -lt 32 ]; then
    DIRECT_MB=32
  fi
  DIRECT_MEMORY="-XX:MaxDirectMemorySize=${DIRECT_MB}m"
fi
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options; DIRECT_MEMORY one option or none
exec "${JAVA:-java}" -XX:AOTCache="$RELAY_HOME/mcp-relay.aot" --enable-native-access=ALL-UNNAMED \
  -XX:MaxRAMPercentage=60 $DIRECT_MEMORY -XX:+ExitOnOutOfMemoryError ${JAVA_OPTS:-} \
  -cp "$RELAY_HOME/mcp-relay.jar:$LOADER_PATH/*" dev.mcprelay.McpRelayApplication "$@"
