package dev.mcprelay.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.junit.jupiter.api.Test;

import dev.mcprelay.docs.WritingAnInterceptorGuideTest;
import dev.mcprelay.plugins.PluginJars;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Plugins with the jar this build packaged, started as {@code java -Dloader.path=<dir> -jar mcp-relay.jar} (Spring
 * Boot's PropertiesLauncher): the example plugin's interceptors are loaded, listed and police the session; a plugin
 * that cannot be loaded stops start-up with its jar's name and the reason.
 */
class PluginLoadingIT {

	private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

	@Test
	void aPluginInLoaderPathIsLoadedListedAndApplied() throws Exception {
		Path plugins = folder("loader-path-ok");
		Files.copy(AotCacheTrainingIT.examplePlugin(), plugins.resolve("tenant-policy-1.0.0.jar"),
				StandardCopyOption.REPLACE_EXISTING);
		int port = freePort();
		Path log = Path.of("target", "plugin-it-ok.out");
		Process relay = start(plugins, port, log, "--plugins.tenant-policy.header=X-Team");
		try {
			RawHttp anonymous = new RawHttp(port);
			HttpResponse<String> refused = whenListening(relay, log,
					() -> anonymous.send(anonymous.post("demo", McpSession.initialize(1))));
			assertThat(RawHttp.json(refused.body()).at("/error/code").asInt()).as(refused.body()).isEqualTo(-32000);
			assertThat(RawHttp.json(refused.body()).at("/error/message").asText())
				.as("the plugin read its setting plugins.tenant-policy.header from the relay's configuration")
				.contains("X-Team");

			McpSession session = McpSession.open(new RawHttp(port, "X-Team", "acme"), "demo");
			assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").body()).contains("echo");
			assertThat(Files.readString(log)).as("the start-up log docs/writing-an-interceptor.md shows")
				.contains(WritingAnInterceptorGuideTest.loggedPluginLine())
				.contains("Interceptors at the user-request stage, in order: [rate-limit, require-tenant]");
		}
		finally {
			relay.destroy();
			relay.waitFor(30, TimeUnit.SECONDS);
		}
	}

	@Test
	void aPluginThatRegistersAClassItDoesNotHaveStopsStartUpNamingTheJar() throws Exception {
		Path plugins = folder("loader-path-missing-class");
		jar(plugins.resolve("broken-policy-0.1.jar"), "com.example.broken.NoSuchInterceptor\n");

		String output = failedStart(plugins, "missing-class");

		assertThat(output).contains("Plugin broken-policy-0.1.jar could not be loaded")
			.contains("com.example.broken.NoSuchInterceptor");
	}

	@Test
	void aPluginThatRegistersNothingStopsStartUpNamingTheJar() throws Exception {
		Path plugins = folder("loader-path-empty");
		jar(plugins.resolve("empty-policy-0.1.jar"), null);

		assertThat(failedStart(plugins, "empty")).contains("Plugin empty-policy-0.1.jar could not be loaded")
			.contains("registers no class");
	}

	private static String failedStart(Path plugins, String name) throws Exception {
		Path log = Path.of("target", "plugin-it-" + name + ".out");
		Process relay = start(plugins, freePort(), log);
		assertThat(relay.waitFor(90, TimeUnit.SECONDS)).as("start-up stops: see " + log).isTrue();
		assertThat(relay.exitValue()).isNotZero();
		return Files.readString(log);
	}

	private static Process start(Path plugins, int port, Path log, String... arguments) throws IOException {
		List<String> command = new java.util.ArrayList<>(List.of(JAVA.toString(), "-Dloader.path=" + plugins, "-jar",
				packagedJar().toString(), "--spring.profiles.active=demo", "--server.port=" + port,
				"--server.address=127.0.0.1"));
		command.addAll(List.of(arguments));
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
	}

	/** A plugin jar whose imports file says {@code imports} ({@code null}: the jar has none). */
	private static void jar(Path path, String imports) throws IOException {
		try (OutputStream out = Files.newOutputStream(path); ZipOutputStream zip = new ZipOutputStream(out)) {
			zip.putNextEntry(new ZipEntry("META-INF/MANIFEST.MF"));
			zip.write("Manifest-Version: 1.0\r\n\r\n".getBytes(StandardCharsets.UTF_8));
			zip.closeEntry();
			if (imports != null) {
				zip.putNextEntry(new ZipEntry(PluginJars.IMPORTS));
				zip.write(imports.getBytes(StandardCharsets.UTF_8));
				zip.closeEntry();
			}
		}
	}

	private static Path folder(String name) throws IOException {
		Path folder = Path.of("target", "plugin-it", name).toAbsolutePath();
		if (Files.exists(folder)) {
			try (Stream<Path> files = Files.list(folder)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
		}
		return Files.createDirectories(folder);
	}

	private static HttpResponse<String> whenListening(Process relay, Path log,
			java.util.concurrent.Callable<HttpResponse<String>> request) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (true) {
			assertThat(relay.isAlive()).as("the relay runs: see " + log).isTrue();
			try {
				return request.call();
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
			List<Path> jars = files.filter(file -> file.getFileName().toString().matches("mcp-relay-.*\\.jar")).toList();
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
