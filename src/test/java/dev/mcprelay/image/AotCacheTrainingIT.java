package dev.mcprelay.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * The image's AOT step, without Docker: {@code deploy/aot-cache.sh} (the script the Dockerfile runs) lays the jar this
 * build packaged out with an AOT cache trained by MCP sessions through the demo profile, on Java 25; the relay then
 * starts with {@code -XX:AOTMode=on} (which refuses to start unless the cache is used) and relays MCP. Runs after the
 * jar is packaged ({@code ./mvnw verify}); skipped where no Java 25 is installed ({@code JAVA25} names it, default the
 * Temurin 25 of the development machines).
 */
class AotCacheTrainingIT {

	private static final Path JAVA25 = Path.of(System.getenv().getOrDefault("JAVA25",
			"/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));

	@Test
	void theTrainedCacheIsUsedAndTheRelayServes() throws Exception {
		assumeTrue(Files.isExecutable(JAVA25), "no Java 25 at " + JAVA25 + ": the AOT cache needs it");
		Path jar = packagedJar();
		Path layout = Path.of("target", "aot-it", "relay").toAbsolutePath();

		ProcessBuilder script = new ProcessBuilder("bash", "deploy/aot-cache.sh", jar.toString(), layout.toString())
			.redirectErrorStream(true)
			.redirectOutput(Path.of("target", "aot-it-training.out").toFile());
		script.environment().put("JAVA", JAVA25.toString());
		Process training = script.start();
		assertThat(training.waitFor(4, TimeUnit.MINUTES)).as("the training finishes").isTrue();
		assertThat(training.exitValue()).as("the script succeeds: " + Files.readString(Path.of("target",
				"aot-it-training.out"))).isZero();
		assertThat(Files.size(layout.resolve("mcp-relay.aot"))).as("a cache was written").isPositive();

		int port = freePort();
		Process relay = new ProcessBuilder(JAVA25.toString(), "-XX:AOTCache=" + layout.resolve("mcp-relay.aot"),
				"-XX:AOTMode=on", "--enable-native-access=ALL-UNNAMED", "-jar", layout.resolve("mcp-relay.jar").toString(),
				"--spring.profiles.active=demo", "--server.port=" + port, "--server.address=127.0.0.1")
			.redirectErrorStream(true)
			.redirectOutput(Path.of("target", "aot-it-relay.out").toFile())
			.start();
		try {
			HttpResponse<String> initialized = initializeWhenListening(port, relay);
			assertThat(initialized.statusCode()).as(initialized.body()).isEqualTo(200);
			assertThat(initialized.headers().firstValue("Mcp-Session-Id")).isPresent();
			assertThat(RawHttp.json(initialized.body()).at("/result/serverInfo/name").asText()).isNotBlank();
		}
		finally {
			relay.destroy();
			relay.waitFor(30, TimeUnit.SECONDS);
		}
	}

	private static HttpResponse<String> initializeWhenListening(int port, Process relay) throws Exception {
		RawHttp http = new RawHttp(port);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			assertThat(relay.isAlive()).as("the relay started with the cache (AOTMode=on): see target/aot-it-relay.out")
				.isTrue();
			try {
				return http.send(http.post("demo", McpSession.initialize(1)));
			}
			catch (IllegalStateException notYet) {
				if (System.nanoTime() > deadline) {
					throw notYet;
				}
				Thread.sleep(200);
			}
		}
	}

	private static Path packagedJar() throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			List<Path> jars = files.filter(file -> file.getFileName().toString().matches("mcp-relay-.*\\.jar"))
				.toList();
			assertThat(jars).as("the jar this build packaged").hasSize(1);
			return jars.get(0).toAbsolutePath();
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
