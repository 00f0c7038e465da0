package dev.mcprelay.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;

import dev.mcprelay.testsupport.RepositoryRoot;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * The image the project's {@code Dockerfile} builds starts, answers its probes, runs as a non-root user, and relays
 * MCP for a real client (the demo profile, so it needs no upstream outside the container). It needs a Docker daemon
 * and is skipped where none is reachable; everything it checks besides the image itself is covered without Docker by
 * the other tests.
 */
@Testcontainers(disabledWithoutDocker = true)
class ContainerImageSmokeTest {

	private static final int HOST_PORT = freeLoopbackPort();

	@Container
	static final GenericContainer<?> RELAY = new GenericContainer<>(
			new ImageFromDockerfile("mcp-relay-smoke-test", true)
		// The build context is the project, filtered by its .dockerignore, as for `docker build .`.
		.withDockerfile(RepositoryRoot.resolve("Dockerfile")))
		.withEnv("SPRING_PROFILES_ACTIVE", "demo")
		.withExposedPorts(8080)
		// Published on the host's loopback interface only, like every server the tests start.
		.withCreateContainerCmdModifier(command -> command.getHostConfig()
			.withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", HOST_PORT), ExposedPort.tcp(8080))))
		.waitingFor(Wait.forHttp("/actuator/health/readiness").forStatusCode(200))
		.withStartupTimeout(Duration.ofMinutes(10));

	@Test
	void theImageAnswersItsProbesAndRelaysMcpForARealClient() throws Exception {
		assertThat(get("/actuator/health/liveness")).isEqualTo(200);
		assertThat(get("/actuator/prometheus")).isEqualTo(200);
		assertThat(get("/actuator/env")).as("nothing else from actuator").isEqualTo(404);

		McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + HOST_PORT)
			.endpoint("/mcp/demo")
			.build()).requestTimeout(Duration.ofSeconds(20)).build();
		try {
			assertThat(client.initialize().serverInfo().name()).isEqualTo("mcp-relay-demo");
			McpSchema.CallToolResult echo = client.callTool(
					McpSchema.CallToolRequest.builder().name("echo").arguments(Map.of("message", "from the image")).build());
			assertThat(((McpSchema.TextContent) echo.content().get(0)).text()).isEqualTo("from the image");
		}
		finally {
			client.closeGracefully();
		}
	}

	@Test
	void theRelayRunsAsANonRootUser() throws Exception {
		String uid = RELAY.execInContainer("id", "-u").getStdout().trim();
		assertThat(uid).as("uid inside the container: not root, and the 999 the Kubernetes manifests run it as")
			.isEqualTo("999");
		assertThat(RELAY.execInContainer("id", "-g").getStdout().trim()).as("gid inside the container").isEqualTo("999");
	}

	private static int freeLoopbackPort() {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static int get(String path) throws Exception {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		return http
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + HOST_PORT + path))
				.timeout(Duration.ofSeconds(10))
				.build(), HttpResponse.BodyHandlers.discarding())
			.statusCode();
	}

}
