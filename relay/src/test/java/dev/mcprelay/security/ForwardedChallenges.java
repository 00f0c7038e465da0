package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * Behind a TLS-terminating proxy ({@code server.forward-headers-strategy}, in each subclass), the challenge of a
 * refused MCP request (answered on Reactor Netty's route) names the RFC 9728 metadata at the address the client used,
 * exactly as the metadata document (served by WebFlux) names the resource; and no {@code Host} a client sends can
 * break out of the challenge's quotes.
 */
abstract class ForwardedChallenges {

	static final TestAuthorizationServer AUTH = new TestAuthorizationServer();

	static final String PUBLIC_METADATA = "https://relay.example.com/.well-known/oauth-protected-resource/mcp/sdk-json";

	@LocalServerPort
	int port;

	static void relay(DynamicPropertyRegistry registry, String strategy) {
		registry.add("server.forward-headers-strategy", () -> strategy);
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.servers.sdk-json.url", () -> TestUpstreams.SDK.url("/stateless"));
	}

	@AfterAll
	static void stop() {
		AUTH.close();
	}

	@Test
	void theChallengeNamesTheAddressTheClientUsedAsTheMetadataDoes() {
		HttpResponse<String> refused = new RawHttp(port).send(forwarded(new RawHttp(port).post("sdk-json",
				RawHttp.toolsCall(1, "echo"))));
		HttpResponse<String> metadata = new RawHttp(port).send(forwarded(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/.well-known/oauth-protected-resource/mcp/sdk-json"))
			.timeout(Duration.ofSeconds(10))));

		assertThat(refused.statusCode()).isEqualTo(401);
		assertThat(refused.headers().firstValue("WWW-Authenticate"))
			.hasValue("Bearer resource_metadata=\"" + PUBLIC_METADATA + "\"");
		assertThat(RawHttp.json(metadata.body()).path("resource").asText())
			.isEqualTo("https://relay.example.com/mcp/sdk-json");
	}

	@Test
	void noHostACallerSendsBreaksOutOfTheChallenge() {
		for (String host : List.of("evil\"x.example", "evil.example\\\"", "[::1]:8443", "a b.example")) {
			RawSocketHttp.Response refused = RawSocketHttp.exchange(port, "POST /mcp/sdk-json HTTP/1.1\r\nHost: " + host
					+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: 2"
					+ "\r\nConnection: close\r\n\r\n{}").get(0);
			if (refused.status() == 401) {
				String challenge = refused.header("WWW-Authenticate");
				assertThat(challenge).as(host).matches("Bearer resource_metadata=\"[^\"\\\\ ]+\"");
			}
			else {
				assertThat(refused.status()).as(host + ": refused as a bad request").isEqualTo(400);
			}
		}
	}

	private static HttpRequest.Builder forwarded(HttpRequest.Builder request) {
		return request.header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "relay.example.com")
			.header("X-Forwarded-Port", "443");
	}

}
