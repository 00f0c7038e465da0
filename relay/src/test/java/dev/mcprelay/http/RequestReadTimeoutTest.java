package dev.mcprelay.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * {@code client-connections.request-read-timeout} (1 s here) bounds a request from its first byte to its last, not only
 * a body whose headers came and whose answer has not begun (Reactor Netty's read timeout): a client that sends half a
 * request line, a header block without its end, or the rest of a body the relay already answered, then goes quiet, is
 * closed after the bound, never held until {@code idle-timeout} (60 s here, beyond the sockets' 10 s read timeout: a
 * connection the bound does not close fails the test). Where nothing was answered, the client reads 408
 * {@code request_read_timeout} first. A keep-alive connection quiet between two requests is {@code idle-timeout}'s
 * business, not this bound's.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "mcp-relay.client-connections.request-read-timeout=1s",
				"mcp-relay.client-connections.idle-timeout=60s" })
class RequestReadTimeoutTest {

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.scripted.url", () -> TestUpstreams.SCRIPTED.url("/mcp"));
	}

	@BeforeEach
	void nothingSeenYet() {
		TestUpstreams.SCRIPTED.clear();
	}

	@Test
	void halfARequestLineIsAnswered408AndClosed() {
		assertAnswered408AndClosed(RawSocketHttp.exchange(port, "POST /mcp/scripted HTT"));
	}

	@Test
	void aHeaderLineCutShortIsAnswered408AndClosed() {
		assertAnswered408AndClosed(
				RawSocketHttp.exchange(port, "POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: abc"));
	}

	@Test
	void headersWithoutTheirBlankLineAreAnswered408AndClosed() {
		assertAnswered408AndClosed(RawSocketHttp.exchange(port,
				"POST /mcp/scripted HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"));
	}

	/** The relay answers an unknown server before it reads the body; the body's rest never comes. */
	@Test
	void theRestOfABodyTheRelayAnsweredAlreadyIsClosedAfterTheBound() {
		List<RawSocketHttp.Response> responses = RawSocketHttp.exchange(port,
				"POST /mcp/nope HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
						+ RawHttp.ACCEPT_BOTH + "\r\nContent-Length: 100\r\n\r\n{\"json");

		assertThat(responses).as("the relay's answer, then the connection closed (not held for idle-timeout)")
			.singleElement()
			.extracting(RawSocketHttp.Response::status)
			.isEqualTo(404);
	}

	@Test
	void aKeepAliveConnectionQuietBetweenRequestsIsNotCut() throws Exception {
		String request = "POST /mcp/nope HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
				+ RawHttp.ACCEPT_BOTH + "\r\nContent-Length: 2\r\n\r\n{}";
		try (RawSocketHttp.Connection connection = RawSocketHttp.open(port)) {
			assertThat(connection.exchange(request).status()).isEqualTo(404);
			// quiet between two requests for more than twice the bound: idle-timeout's business
			Thread.sleep(2500);
			RawSocketHttp.Response second = connection.exchange(request);

			assertThat(second).as("the connection is still open for the next request").isNotNull();
			assertThat(second.status()).isEqualTo(404);
		}
	}

	private static void assertAnswered408AndClosed(List<RawSocketHttp.Response> responses) {
		assertThat(responses).as("one answer, then the relay closes the connection").hasSize(1);
		RawSocketHttp.Response response = responses.get(0);
		assertThat(response.status()).isEqualTo(408);
		assertThat(response.header("Connection")).isEqualToIgnoringCase("close");
		JsonNode error = RawHttp.json(response.body()).get("error");
		assertThat(error.path("code").asInt()).isEqualTo(-32600);
		assertThat(error.at("/data/reason").asText()).isEqualTo("request_read_timeout");
		assertThat(TestUpstreams.SCRIPTED.seen()).as("nothing forwarded").isEmpty();
	}

}
