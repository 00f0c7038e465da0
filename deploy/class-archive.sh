#!/usr/bin/env sh
# deploy/class-archive.sh JAR DIR: lays the relay out for a fast start, as the container image runs it.
#
# Extracts the Spring Boot jar into DIR (DIR/mcp-relay.jar and DIR/lib/: classes load from plain jars, not from
# nested ones), then runs the relay once with -Dspring.context.exit=onRefresh, so that the JVM writes every class the
# application context loaded into DIR/mcp-relay.jsa (an AppCDS archive, JDK 13+). Started with
#   java -XX:SharedArchiveFile=DIR/mcp-relay.jsa -jar DIR/mcp-relay.jar
# the relay maps those classes instead of loading and verifying them again. The archive is tied to this JDK build and
# these jars: build it where the relay runs (the Dockerfile does), and again after either changes.
set -eu
JAR=$1
DIR=$2
rm -rf "$DIR"
java -Djarmode=tools -jar "$JAR" extract --destination "$DIR" >/dev/null
mv "$DIR/$(basename "$JAR")" "$DIR/mcp-relay.jar"
# the training run: the default configuration (the demo upstream), no port opened, nothing sent anywhere
java -XX:ArchiveClassesAtExit="$DIR/mcp-relay.jsa" -Dspring.context.exit=onRefresh -jar "$DIR/mcp-relay.jar" \
  --logging.level.root=WARN >/dev/null 2>&1 || true
[ -s "$DIR/mcp-relay.jsa" ] || { echo "class-archive.sh: the training run wrote no archive" >&2; exit 1; }
