package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.api.ClientResponseInterceptor;
import dev.mcprelay.api.ElicitationRequestInterceptor;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.SamplingRequestInterceptor;
import dev.mcprelay.testsupport.OwnEventLoops;

/**
 * Both directions with the official TypeScript SDK on each side: the server's tools ask the client's model
 * ({@code sampling/createMessage}) and the user ({@code elicitation/create}) over the standalone GET stream. Through a
 * relay with server-request and client-response interceptors, the client gets the changed requests, and the user's
 * answer is checked and changed with the server's request at hand before the server gets it.
 */
class BothDirectionsInteropTest {

	static NodePeers.NodeServer server;

	static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		server = NodePeers.startServer("sampling-server.mjs");
		relay = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class, Policies.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--mcp-relay.security.mode=none",
				"--mcp-relay.servers.both.url=" + server.url());
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void theClientGetsTheChangedRequestsAndTheServerTheCheckedAnswer() throws Exception {
		ObjectMapper json = new ObjectMapper();
		int port = ((WebServerApplicationContext) relay).getWebServer().getPort();

		JsonNode direct = json.readTree(NodePeers.runClient("both-directions-scenario.mjs", server.url()));
		JsonNode relayed = json.readTree(
				NodePeers.runClient("both-directions-scenario.mjs", "http://127.0.0.1:" + port + "/mcp/both"));

		assertThat(direct.at("/sampling/maxTokens").asInt()).isEqualTo(16);
		assertThat(direct.path("askUser").asText()).isEqualTo("user said: accept Alice@Example.com");
		assertThat(relayed.at("/sampling/maxTokens").asInt()).as(relayed.toString()).isEqualTo(4);
		assertThat(relayed.at("/sampling/systemPrompt").asText()).isEqualTo("Be brief.");
		assertThat(relayed.at("/elicitation/message").asText()).isEqualTo("[via relay] Which email address should receive the report?");
		assertThat(relayed.path("askModel").asText()).isEqualTo("model said: hello");
		assertThat(relayed.path("askUser").asText()).as("the answer was checked against the request and normalised")
			.isEqualTo("user said: accept alice@example.com");
	}

	/** The interceptors of this relay. */
	static class Policies {

		@Bean
		SamplingRequestInterceptor brief() {
			return new SamplingRequestInterceptor() {

				@Override
				public String name() {
					return "brief";
				}

				@Override
				public reactor.core.publisher.Mono<Outcome> interceptSamplingRequest(
						dev.mcprelay.api.SamplingRequest request) {
					request.setMaxTokens(4);
					request.setSystemPrompt("Be brief.");
					return Outcome.proceed();
				}

			};
		}

		@Bean
		ElicitationRequestInterceptor labelled() {
			return new ElicitationRequestInterceptor() {

				@Override
				public String name() {
					return "labelled";
				}

				@Override
				public reactor.core.publisher.Mono<Outcome> interceptElicitationRequest(
						dev.mcprelay.api.ElicitationRequest request) {
					request.setUserMessage("[via relay] " + request.userMessage());
					return Outcome.proceed();
				}

			};
		}

		@Bean
		ClientResponseInterceptor normalisedEmail() {
			return new ClientResponseInterceptor() {

				@Override
				public String name() {
					return "normalised-email";
				}

				@Override
				public reactor.core.publisher.Mono<Outcome> interceptClientResponse(
						dev.mcprelay.api.ClientResponse response) {
					if ("elicitation/create".equals(response.serverRequestMethod())
							&& response.serverRequestParams().at("/requestedSchema/properties").has("email")) {
						String email = response.result().at("/content/email").asText();
						response.replaceResult(Map.of("action", "accept", "content",
								Map.of("email", email.toLowerCase(java.util.Locale.ROOT))));
					}
					return Outcome.proceed();
				}

			};
		}

	}

}
