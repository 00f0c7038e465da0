package dev.mcprelay.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RepositoryRoot;

/**
 * The README's first command, as a newcomer types it in the repository's folder, runs the relay in front of the demo
 * server (on a free loopback port here, not 8080): an MCP client gets the demo's answer through it.
 */
class ReadmeRunCommandIT {

	@Test
	void theFirstCommandRunsTheRelayBeforeTheDemoServer() throws Exception {
		String readme = Files.readString(RepositoryRoot.resolve("README.md"));
		String block = readme.substring(readme.indexOf("```bash\n") + 8);
		String command = block.substring(0, block.indexOf('\n')).replaceFirst("\\s+#.*$", "");
		assertThat(command).startsWith("./mvnw ").contains("spring-boot:run").contains("demo");
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		Path log = Path.of("target", "readme-run-command.out");
		Process maven = new ProcessBuilder("bash", "-c", command + " -B -q \"-Dspring-boot.run.jvmArguments=-Dserver.port="
				+ port + " -Dserver.address=127.0.0.1\"")
			.directory(RepositoryRoot.resolve(".").toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			RawHttp http = new RawHttp(port);
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
			HttpResponse<String> initialized = null;
			while (initialized == null) {
				assertThat(maven.isAlive()).as("the command runs: see " + log).isTrue();
				try {
					initialized = http.send(http.post("demo", McpSession.initialize(1)));
				}
				catch (IllegalStateException notYet) {
					assertThat(System.nanoTime()).as("the relay listens within 3 minutes: see " + log).isLessThan(deadline);
					Thread.sleep(500);
				}
			}
			assertThat(initialized.statusCode()).isEqualTo(200);
			assertThat(RawHttp.json(initialized.body()).at("/result/serverInfo/name").asText()).isEqualTo("mcp-relay-demo");
		}
		finally {
			maven.descendants().forEach(ProcessHandle::destroy);
			maven.destroy();
			maven.waitFor(30, TimeUnit.SECONDS);
			maven.descendants().forEach(ProcessHandle::destroyForcibly);
		}
	}

}
