package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * {@code /mcp} serves {@code mcp-relay.default-server}, or the only configured server; server ids that are the
 * relay's own paths are refused at start-up.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DefaultServerTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.refused.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/mcp");
		registry.add("mcp-relay.default-server", () -> "sdk-json");
	}

	@Test
	void slashMcpRelaysToTheDefaultServer() {
		HttpResponse<String> response = new RawHttp(port).send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofString(McpSession.initialize(1))));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat(RawHttp.json(response.body()).at("/result/serverInfo/name").asText()).isNotBlank();
	}

	@Test
	void theOnlyServerIsTheDefaultWhenNoneIsNamed() {
		ConfigurationSnapshot snapshot = snapshot(properties(Map.of("only", server()), null), ROUTING_ENVIRONMENT);

		assertThat(REGISTRY.in(snapshot).require(ROUTING.resolve(snapshot, "/mcp")).id()).isEqualTo("only");
	}

	@Test
	void withSeveralServersAndNoDefaultSlashMcpSaysHowToPickOne() {
		RelayProperties properties = properties(Map.of("a", server(), "b", server()), null);
		ConfigurationSnapshot snapshot = snapshot(properties, ROUTING_ENVIRONMENT);

		assertThatThrownBy(() -> REGISTRY.in(snapshot).require(ROUTING.resolve(snapshot, "/mcp"))).isInstanceOfSatisfying(RelayFailure.class, failure -> {
			assertThat(failure.status().value()).isEqualTo(404);
			assertThat(failure.reason()).isEqualTo("no_default_server");
			assertThat(failure.getMessage()).contains("/mcp/{server}").doesNotContain("'a'").doesNotContain("'b'");
		});
	}

	@Test
	void aDefaultServerThatIsNotConfiguredFailsStartUp() {
		assertThatThrownBy(() -> snapshot(properties(Map.of("a", server()), "github"), new MockEnvironment()))
			.isInstanceOfSatisfying(InvalidRelayConfigurationException.class, ex -> assertThat(ex.problems())
				.extracting(ConfigurationProblem::property)
				.containsExactly("mcp-relay.default-server"));
	}

	@Test
	void serverIdsThatAreTheRelaysOwnPathsFailStartUp() {
		MockEnvironment demo = new MockEnvironment();
		demo.setActiveProfiles("demo");
		MockEnvironment movedActuator = new MockEnvironment().withProperty("management.endpoints.web.base-path",
				"/manage/x");

		assertThat(problems(Map.of("actuator", server(), ".well-known", server(), "ok", server()), new MockEnvironment()))
			.containsOnly("mcp-relay.servers..well-known", "mcp-relay.servers.actuator");
		assertThat(problems(Map.of("demo-upstream", server()), demo)).containsExactly("mcp-relay.servers.demo-upstream");
		assertThat(problems(Map.of("demo-upstream", server(), "actuator", server()), movedActuator))
			.as("without the demo, and with the actuator elsewhere, both ids are free").isEmpty();
		assertThat(problems(Map.of("manage", server()), movedActuator)).containsExactly("mcp-relay.servers.manage");
	}

	@Test
	void aWebFluxBasePathFailsStartUp() {
		MockEnvironment prefixed = new MockEnvironment().withProperty("spring.webflux.base-path", "/gw");

		assertThat(problems(Map.of("ok", server()), prefixed)).as("the MCP paths would stay at the root")
			.containsExactly("spring.webflux.base-path");
		assertThat(problems(Map.of("ok", server()), new MockEnvironment().withProperty("spring.webflux.base-path", "/")))
			.as("the root is no prefix").isEmpty();
	}

	private static java.util.List<String> problems(Map<String, ServerProperties> servers, MockEnvironment environment) {
		try {
			snapshot(properties(servers, null), environment);
			return java.util.List.of();
		}
		catch (InvalidRelayConfigurationException ex) {
			return ex.problems().stream().map(ConfigurationProblem::property).toList();
		}
	}

	private static final MockEnvironment ROUTING_ENVIRONMENT = new MockEnvironment();

	private static final McpRouting ROUTING = new McpRouting(ROUTING_ENVIRONMENT, null);

	private static final UpstreamRegistry REGISTRY = new UpstreamRegistry(null);

	/** The snapshot a relay started with {@code properties} in {@code environment} runs on, or its start-up failure. */
	private static ConfigurationSnapshot snapshot(RelayProperties properties, MockEnvironment environment) {
		McpRouting routing = ROUTING_ENVIRONMENT == environment ? ROUTING : new McpRouting(environment, null);
		return new LiveConfiguration(properties, environment, java.util.List.of(routing, REGISTRY)).current();
	}

	private static ServerProperties server() {
		return new ServerProperties("http://127.0.0.1:1/mcp", null, null, java.util.List.of(),
				new dev.mcprelay.config.TimeoutProperties(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1)),
				org.springframework.util.unit.DataSize.ofMegabytes(1), new dev.mcprelay.config.ToolsProperties(
						java.util.List.of(), java.util.List.of()),
				new dev.mcprelay.config.ArgumentsProperties("_", java.util.List.of()),
				dev.mcprelay.config.RejectedServerRequests.SILENT, null, java.util.List.of(), null, java.util.List.of());
	}

	/** The relay's properties with {@code servers} (their ids; every one at an address nothing listens on). */
	private static RelayProperties properties(Map<String, ServerProperties> servers, String defaultServer) {
		Map<String, String> keys = new java.util.HashMap<>();
		keys.put("security.mode", "none");
		servers.keySet().forEach(id -> keys.put("servers[" + id + "].url", "http://127.0.0.1:1/mcp"));
		if (defaultServer != null) {
			keys.put("default-server", defaultServer);
		}
		return dev.mcprelay.testsupport.BoundProperties.of(keys);
	}

}
