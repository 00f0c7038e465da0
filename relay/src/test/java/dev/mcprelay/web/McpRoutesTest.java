package dev.mcprelay.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.WebFluxExchanges;

/**
 * In security mode {@code none} the MCP paths are served on Reactor Netty directly ({@link McpRoutes}): no request the
 * relay observes (a configured server, an unknown one, an ambiguous path) becomes a WebFlux exchange, while every other
 * path (the actuator, a path nothing serves) still does ({@link WebFluxExchanges} sees every exchange WebFlux makes).
 * The secured modes are held to the same in {@code SecuredMcpRoutesTest} and {@code JwtSecurityTest}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(WebFluxExchanges.class)
class McpRoutesTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
	}

	@BeforeEach
	void forget() {
		WebFluxExchanges.PATHS.clear();
	}

	@Test
	void mcpPathsReachTheRelayWithoutWebFlux() {
		RawHttp http = new RawHttp(port);

		HttpResponse<String> initialized = http.send(http.post("sdk-json", McpSession.initialize(1)));
		HttpResponse<String> unknown = http.send(http.post("nowhere", McpSession.initialize(2)));
		HttpResponse<String> ambiguous = http.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp/sdk-json/"))
			.POST(HttpRequest.BodyPublishers.ofString(McpSession.initialize(3))));

		assertThat(initialized.statusCode()).as("a configured server is relayed").isEqualTo(200);
		assertThat(RawHttp.json(initialized.body()).at("/result/serverInfo").isObject()).isTrue();
		assertThat(unknown.statusCode()).as("an unknown server is the relay's 404").isEqualTo(404);
		assertThat(RawHttp.json(unknown.body()).at("/error/data/reason").asText()).isEqualTo("unknown_server");
		assertThat(ambiguous.statusCode()).as("an ambiguous path is refused by the relay").isEqualTo(400);
		assertThat(RawHttp.json(ambiguous.body()).at("/error/data/reason").asText()).isEqualTo("ambiguous_path");
		assertThat(WebFluxExchanges.PATHS).as("no MCP path becomes a WebFlux exchange").isEmpty();
	}

	@Test
	void everyOtherPathStaysOnWebFlux() {
		RawHttp http = new RawHttp(port);

		HttpResponse<String> health = http.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health")).GET());
		HttpResponse<String> nothing = http.send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/nothing/here")).GET());

		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(nothing.statusCode()).as("a path nothing serves is WebFlux's JSON-RPC 404").isEqualTo(404);
		assertThat(RawHttp.json(nothing.body()).at("/error/data/reason").asText()).isEqualTo("not_found");
		assertThat(WebFluxExchanges.PATHS).as("the actuator and unknown paths stay on WebFlux")
			.containsExactly("/actuator/health", "/nothing/here");
	}

}
