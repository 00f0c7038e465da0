package dev.mcprelay.security.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;

/**
 * Request-line and framing attacks on a socket, in {@code api-key} mode with a key that opens {@code acme} only:
 * absolute-form request lines, a {@code Host} that names someone else, {@code Content-Length} with
 * {@code Transfer-Encoding} carrying a second request, two {@code Content-Length}s, and pipelined requests. The server
 * {@code other} never sees anything, and {@code acme} sees only single, well-formed requests, whatever the client's
 * framing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RequestFramingAttackTest {

	static final String KEY = "framing-acme-key-5c3a1e9d";

	static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		PathAttackProperty.servers(registry);
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "acme-only");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> ApiKeyPathAttackTest.sha256(KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "acme");
	}

	@BeforeEach
	void forgetWhatWasSeen() {
		PathAttackProperty.ACME.clear();
		PathAttackProperty.OTHER.clear();
	}

	@Test
	void absoluteFormRequestLinesAreRoutedByTheirPathLikeAnyOther() {
		List<RawSocketHttp.Response> toOther = RawSocketHttp.exchange(port,
				post("http://127.0.0.1:" + port + "/mcp/other", "127.0.0.1:" + port, CALL));
		List<RawSocketHttp.Response> disguised = RawSocketHttp.exchange(port,
				post("http://evil.example/%6dcp/other", "127.0.0.1:" + port, CALL));
		List<RawSocketHttp.Response> toAcme = RawSocketHttp.exchange(port,
				post("http://127.0.0.1:" + port + "/mcp/acme", "127.0.0.1:" + port, CALL));

		assertThat(toOther).first().satisfies(response -> assertThat(response.status()).isEqualTo(403));
		assertThat(disguised).first().satisfies(response -> assertThat(response.status()).isEqualTo(400));
		assertThat(toAcme).first().satisfies(response -> assertThat(response.status()).as(response.body()).isEqualTo(200));
		assertNothingReachedOther();
		assertThat(PathAttackProperty.ACME.seen()).as("the allowed absolute-form request is relayed once").hasSize(1);
	}

	@Test
	void aHostThatNamesSomeoneElseChangesNothing() {
		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(port, post("/mcp/other", "acme.example", CALL));

		assertThat(responses).first().satisfies(response -> assertThat(response.status()).isIn(400, 403));
		assertNothingReachedOther();
	}

	@Test
	void aSecondRequestSmuggledInTheBodyIsNeverRelayedAsOne() {
		String smuggled = post("/mcp/other", "127.0.0.1:" + port, CALL);
		String chunked = "0\r\n\r\n" + smuggled;
		String request = "POST /mcp/acme HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Api-Key: " + KEY
				+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: "
				+ chunked.getBytes(StandardCharsets.UTF_8).length + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked;

		RawSocketHttp.exchange(port, request);

		assertNothingReachedOther();
		assertAcmeSawOnlySingleRequests();
	}

	@Test
	void twoContentLengthsAreRefused() {
		String request = "POST /mcp/acme HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Api-Key: " + KEY
				+ "\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: " + CALL.length()
				+ "\r\nConnection: close\r\n\r\n" + CALL;

		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(port, request);

		assertThat(responses).first().satisfies(response -> assertThat(response.status()).isEqualTo(400));
		assertThat(PathAttackProperty.ACME.seen()).as("a request of uncertain length reaches no upstream").isEmpty();
		assertNothingReachedOther();
	}

	@Test
	void pipelinedRequestsAreEachAuthorizedOnTheirOwn() {
		String first = post("/mcp/acme", "127.0.0.1:" + port, CALL).replace("Connection: close\r\n", "");
		String second = post("/mcp/other", "127.0.0.1:" + port, CALL).replace("Connection: close\r\n", "");

		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(port, first + second, 2);

		assertThat(responses).extracting(RawSocketHttp.Response::status).containsExactly(200, 403);
		assertNothingReachedOther();
		assertAcmeSawOnlySingleRequests();
		assertThat(PathAttackProperty.ACME.seen()).hasSize(1);
	}

	private static String post(String target, String host, String body) {
		return "POST " + target + " HTTP/1.1\r\nHost: " + host + "\r\nX-Api-Key: " + KEY
				+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nContent-Length: "
				+ body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body;
	}

	private static void assertNothingReachedOther() {
		assertThat(PathAttackProperty.OTHER.seen()).as("nothing reaches 'other'").isEmpty();
	}

	private static void assertAcmeSawOnlySingleRequests() {
		assertThat(PathAttackProperty.ACME.seen()).as("acme sees single, well-formed requests").allSatisfy(seen -> {
			assertThat(seen.uri()).isEqualTo("/mcp");
			assertThat(RawHttp.json(seen.body()).isObject()).as(seen.body()).isTrue();
			assertThat(seen.body()).doesNotContain("HTTP/1.1");
		});
	}

}
