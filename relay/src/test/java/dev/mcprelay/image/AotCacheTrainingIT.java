package dev.mcprelay.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * The image's AOT step, without Docker: {@code deploy/aot-cache.sh} (the script the Dockerfile runs) lays the jar this
 * build packaged out with an AOT cache trained by MCP sessions through the demo profile, on Java 25; the relay then
 * starts with {@code -XX:AOTMode=on} (which refuses to start unless the cache is used) and relays MCP. Runs after the
 * jar is packaged ({@code ./mvnw verify}); skipped where no Java 25 is installed ({@code JAVA25} names it, default the
 * Temurin 25 of the development machines). The plugin test also needs {@code examples/tenant-policy}'s jar, which the
 * build from the repository root makes before this module.
 */
class AotCacheTrainingIT {

	private static final Path JAVA25 = Path.of(System.getenv().getOrDefault("JAVA25",
			"/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));

	private static Path layout;

	/** The layout the image has, with its cache trained: once for every test here. */
	@BeforeAll
	static void train() throws Exception {
		assumeTrue(Files.isExecutable(JAVA25), "no Java 25 at " + JAVA25 + ": the AOT cache needs it");
		Path jar = packagedJar();
		layout = Path.of("target", "aot-it", "relay").toAbsolutePath();
		ProcessBuilder script = new ProcessBuilder("bash", RepositoryRoot.resolve("deploy/aot-cache.sh").toString(),
				jar.toString(), layout.toString())
			.redirectErrorStream(true)
			.redirectOutput(Path.of("target", "aot-it-training.out").toFile());
		script.environment().put("JAVA", JAVA25.toString());
		Process training = script.start();
		assertThat(training.waitFor(4, TimeUnit.MINUTES)).as("the training finishes").isTrue();
		assertThat(training.exitValue()).as("the script succeeds: " + Files.readString(Path.of("target",
				"aot-it-training.out"))).isZero();
		assertThat(Files.size(layout.resolve("mcp-relay.aot"))).as("a cache was written").isPositive();
	}

	@Test
	void theTrainedCacheIsUsedAndTheRelayServes() throws Exception {
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

	/**
	 * The example plugin ({@code examples/tenant-policy}, built against the API alone) in the plugin folder of a relay
	 * started as the image starts it ({@code deploy/start-relay.sh}, the image's ENTRYPOINT): the cache still applies
	 * (AOTMode=on), the start-up log lists the plugin's interceptors, and they police an MCP session.
	 */
	@Test
	void thePluginInTheImagesPluginFolderPolicesTheSession() throws Exception {
		Path plugins = Files.createDirectories(Path.of("target", "aot-it", "plugins").toAbsolutePath());
		Files.copy(examplePlugin(), plugins.resolve("tenant-policy-1.0.0.jar"), StandardCopyOption.REPLACE_EXISTING);
		int port = freePort();
		Path log = Path.of("target", "aot-it-plugin-relay.out");
		ProcessBuilder start = new ProcessBuilder("sh", RepositoryRoot.resolve("deploy/start-relay.sh").toString(),
				"--spring.profiles.active=demo", "--server.port=" + port, "--server.address=127.0.0.1")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		start.environment().put("JAVA", JAVA25.toString());
		start.environment().put("JAVA_OPTS", "-XX:AOTMode=on");
		start.environment().put("RELAY_HOME", layout.toString());
		start.environment().put("LOADER_PATH", plugins.toString());
		Process relay = start.start();
		try {
			HttpResponse<String> untenanted = initializeWhenListening(port, relay);
			assertThat(RawHttp.json(untenanted.body()).at("/error/message").asText())
				.as("the plugin's require-tenant refuses a request without X-Tenant: %s", untenanted.body())
				.contains("X-Tenant");

			McpSession session = McpSession.open(new RawHttp(port, "X-Tenant", "acme"), "demo");
			HttpResponse<String> call = session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}");
			assertThat(call.statusCode()).isEqualTo(200);
			assertThat(call.body()).as("a tenant's call goes through the plugin to the upstream").contains("hi")
				.doesNotContain("\"error\"");
			HttpResponse<String> delete = session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
					+ "\"params\":{\"name\":\"delete_everything\",\"arguments\":{}}}");
			assertThat(delete.body()).as("tenant-tool-calls keeps delete_ tools to the admin tenant")
				.contains("reserved to the admin tenant");

			assertThat(Files.readString(log)).contains("Plugin tenant-policy-1.0.0.jar: require-tenant (user-request), "
					+ "tenant-tool-calls (tools-call-request), tenant-tool-list (tools-list-response)");
		}
		finally {
			relay.destroy();
			relay.waitFor(30, TimeUnit.SECONDS);
		}
	}

	/** The example plugin's jar, as the build made it before this module. */
	static Path examplePlugin() throws IOException {
		Path target = RepositoryRoot.resolve("examples/tenant-policy/target");
		try (Stream<Path> files = Files.list(target)) {
			return files.filter(file -> file.getFileName().toString().matches("tenant-policy-.*\\.jar"))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no tenant-policy jar in " + target + ": build from the repository "
						+ "root (./mvnw verify), which builds examples/tenant-policy before the relay"));
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
