#!/usr/bin/env bash
# JMH microbenchmarks of the relay's hot paths (SSE splitting, JSON-RPC parsing, splicing a change into a message):
#   bench/jmh.sh                 all of them (about 3 minutes)
#   bench/jmh.sh Splicing -f 1   any JMH options: a name pattern, -f forks, -wi/-i iterations, -prof gc, ...
set -euo pipefail
cd "$(dirname "$0")/.."
# clean: the relay sources the benchmarks reach are compiled here without being listed as included, and the
# compiler recompiles only the included ones it sees changed
./mvnw -q -B -f bench/jmh/pom.xml clean package
java -jar bench/jmh/target/benchmarks.jar "$@"
