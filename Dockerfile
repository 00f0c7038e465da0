# syntax=docker/dockerfile:1
# Build: docker build -t mcp-relay .   Run: docker run -p 8080:8080 -v $PWD/deploy:/app/config:ro mcp-relay
# The relay is compiled for Java 17 (what an interceptor author may compile against) and runs on a Java 25 JRE, whose
# AOT cache (JEP 483, 514, 515) starts it with its classes loaded and linked and its method profiles recorded.
FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY .mvn .mvn
COPY mvnw pom.xml ./
COPY mcp-relay-api mcp-relay-api
COPY mcp-relay-core mcp-relay-core
COPY mcp-relay-test mcp-relay-test
COPY examples examples
COPY relay relay
RUN ./mvnw -B -q package -DskipTests -pl relay -am && cp relay/target/mcp-relay-*.jar /relay.jar

FROM eclipse-temurin:25-jre
# The user relay, uid and gid 999 as the Kubernetes manifests name them (runAsUser: 999): fixed, not whatever
# useradd --system picks on this base image.
RUN groupadd --system --gid 999 relay \
  && useradd --system --uid 999 --gid relay --home-dir /app --shell /usr/sbin/nologin relay
WORKDIR /app
COPY --from=build /relay.jar /tmp/relay.jar
COPY deploy/aot-cache.sh /tmp/aot-cache.sh
# The jar extracted and an AOT cache trained by a short run of MCP sessions through the demo profile
# (deploy/aot-cache.sh), built with this JRE at the path the relay runs from: the suite runs the same script.
RUN bash /tmp/aot-cache.sh /tmp/relay.jar /app/relay && rm /tmp/relay.jar /tmp/aot-cache.sh /app/relay/training.log
COPY deploy/start-relay.sh /app/start-relay.sh
# Plugins: jars of interceptors built against mcp-relay-api, mounted or copied here (see "Writing an interceptor").
RUN mkdir -p /app/plugins
ENV LOADER_PATH=/app/plugins
# By number, so that a runtime (the kubelet's runAsNonRoot) can tell it is not root without reading /etc/passwd.
USER 999:999
EXPOSE 8080
# Spring Boot reads /app/config/application.yml (mount your own) on top of the defaults in the jar.
# The heap may take 60% of the container's memory limit, Netty's direct buffers 15% (DIRECT_MEMORY_PERCENT, as
# -XX:MaxDirectMemorySize computed by deploy/start-relay.sh from the memory cgroup): the rest is for the JVM's own
# memory (classes, compiled code, threads) and the kernel's memory for the sockets, which the container's limit also
# counts. In a 512 MB memory cgroup with 8,500 open streams and forced full collections, the kernel killed the relay
# with the heap at 75% and at 65%, not at 60% (bench/results). deploy/start-relay.sh starts it with the AOT cache and
# the plugins in LOADER_PATH.
ENTRYPOINT ["/app/start-relay.sh"]
