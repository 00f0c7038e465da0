package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.HttpHeaders;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/** Which headers reach the upstream, and which come back, through a real relay (DESIGN section 3, step 4). */
class HeaderForwardingTest extends RelayIntegrationTest {

	@BeforeEach
	void scriptJsonAnswer() {
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.header("Mcp-Session-Id", "upstream-session")
			.header("Set-Cookie", "upstream=1")
			.header("X-Upstream", "yes")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
	}

	@Test
	void clientIdentityIsReplacedByConfiguredCredentials() {
		// an Mcp-Param-* header has the relay read the called tool's declarations first (its own tools/list, which
		// carries none of the client's Mcp-Param-* headers): echo declares none, so the header goes on untouched
		TestUpstreams.SCRIPTED.scriptWithBody((request, response, body) -> response.status(200)
			.header("Content-Type", "application/json")
			.header("Mcp-Session-Id", "upstream-session")
			.sendString(Mono.just(!body.contains("\"tools/list\"") ? "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
					: "{\"jsonrpc\":\"2.0\",\"id\":" + RawHttp.json(body).get("id") + ",\"result\":{\"tools\":["
							+ "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}}")));
		HttpResponse<String> response = http().send(http().post("scripted-headers", RawHttp.toolsCall(1, "echo"))
			.header("Authorization", "Bearer client-token")
			.header("Cookie", "session=client")
			.header("Referer", "https://app.example.com/page")
			.header("Origin", "https://app.example.com")
			.header("Accept-Encoding", "gzip")
			.header("X-Api-Key", "forged-by-client")
			.header("X-Client-Tenant", "acme")
			.header("X-Trace", "forged-trace")
			.header("X-Custom", "kept")
			.header("Forwarded", "for=203.0.113.9;proto=https")
			.header("X-Forwarded-For", "203.0.113.9")
			.header("X-Forwarded-Host", "spoofed.example.com")
			.header("X-Forwarded-Proto", "https")
			.header("X-Forwarded-Port", "443")
			.header("X-Forwarded-Prefix", "/admin")
			.header("X-Forwarded-Ssl", "on")
			.header("Mcp-Param-Region", "=?base64?ZXUtd2VzdA==?=")
			.header("Mcp-Session-Id", "client-session")
			.header("MCP-Protocol-Version", "2025-11-25"));

		assertThat(response.statusCode()).isEqualTo(200);
		ScriptedUpstream.Seen seen = TestUpstreams.SCRIPTED.lastSeen();
		HttpHeaders upstream = seen.headers();
		assertThat(upstream.get("Authorization")).as("configured authorization replaces the client's")
			.containsExactly(UPSTREAM_TOKEN);
		assertThat(upstream.get("X-Api-Key")).as("a configured static value wins over the client's").containsExactly(STATIC_KEY);
		assertThat(upstream.get("X-Tenant")).as("copied from the inbound X-Client-Tenant").containsExactly("acme");
		assertThat(upstream.get("X-Trace")).as("configured from X-Client-Trace, absent, so the client's own is dropped").isNull();
		assertThat(upstream.get("Cookie")).isNull();
		assertThat(upstream.get("Referer")).isNull();
		assertThat(upstream.get("Origin")).isNull();
		assertThat(upstream.getFirst("Accept-Encoding")).as("the client's encodings are not forwarded").isNotEqualTo("gzip");
		assertThat(upstream.get("X-Custom")).containsExactly("kept");
		assertThat(upstream.headerNames()).as("what a client says about its own connection is not passed on as if a proxy said it")
			.noneMatch(name -> name.equalsIgnoreCase("Forwarded") || name.toLowerCase(java.util.Locale.ROOT).startsWith("x-forwarded-"));
		assertThat(upstream.get("Mcp-Param-Region")).as("an Mcp-Param-* header the tool does not declare goes upstream untouched")
			.containsExactly("=?base64?ZXUtd2VzdA==?=");
		assertThat(TestUpstreams.SCRIPTED.seen().get(0).headers().headerNames()).as("the relay's own tools/list")
			.noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).startsWith("mcp-param-"));
		assertThat(upstream.get("Mcp-Session-Id")).containsExactly("client-session");
		assertThat(upstream.get("MCP-Protocol-Version")).containsExactly("2025-11-25");
		assertThat(upstream.getFirst("Accept")).isEqualTo(RawHttp.ACCEPT_BOTH);
		assertThat(upstream.getFirst("Content-Type")).isEqualTo("application/json");
		assertThat(upstream.getFirst("Host")).as("Host names the upstream").isEqualTo(TestUpstreams.SCRIPTED.url("").substring(7));
		assertThat(seen.uri()).as("the configured URL, query included").isEqualTo("/mcp?key=" + QUERY_SECRET);
		assertThat(seen.body()).as("the body goes upstream byte for byte").isEqualTo(RawHttp.toolsCall(1, "echo"));
	}

	@Test
	void responseHeadersComeBackExceptCookies() {
		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(response.headers().firstValue("Mcp-Session-Id")).hasValue("upstream-session");
		assertThat(response.headers().firstValue("X-Upstream")).hasValue("yes");
		assertThat(response.headers().firstValue("Set-Cookie")).isEmpty();
		assertThat(response.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	}

	@Test
	void repeatedRequestHeaderLinesReachTheUpstreamAsRepeatedLines() {
		HttpResponse<String> response = http().send(http().request("scripted-headers")
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.header("Accept", "text/event-stream")
			.header("X-Custom", "one")
			.header("X-Custom", "two")
			.header("X-Client-Tenant", "acme")
			.header("X-Client-Tenant", "globex")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(1, "echo"))));

		assertThat(response.statusCode()).isEqualTo(200);
		HttpHeaders upstream = TestUpstreams.SCRIPTED.lastSeen().headers();
		assertThat(upstream.get("Accept")).as("two Accept lines stay two lines, in order")
			.containsExactly("application/json", "text/event-stream");
		assertThat(upstream.get("X-Custom")).as("any repeated header stays repeated").containsExactly("one", "two");
		assertThat(upstream.get("X-Tenant")).as("a from-request-header copies every value of its inbound header")
			.containsExactly("acme", "globex");
		assertThat(upstream.get("X-Api-Key")).as("a configured static value still replaces, once").containsExactly(STATIC_KEY);
		assertThat(upstream.get("Authorization")).as("the configured authorization still replaces, once")
			.containsExactly(UPSTREAM_TOKEN);
	}

	@Test
	void repeatedResponseHeaderLinesReachTheClientAsRepeatedLines() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.addHeader("Link", "<https://example.com/a>; rel=\"a\"")
			.addHeader("Link", "<https://example.com/b>; rel=\"b\"")
			.addHeader("Vary", "Accept")
			.addHeader("Vary", "Mcp-Session-Id")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().allValues("Link")).as("both Link lines reach the client")
			.containsExactly("<https://example.com/a>; rel=\"a\"", "<https://example.com/b>; rel=\"b\"");
		assertThat(response.headers().allValues("Vary")).as("both Vary lines reach the client")
			.containsExactly("Accept", "Mcp-Session-Id");
	}

	@ParameterizedTest(name = "{0}: {1} and {2}")
	@CsvSource(delimiter = '|', value = { "Content-Type|application/json|text/plain",
			"MCP-Protocol-Version|2025-06-18|2025-11-25", "Mcp-Session-Id|session-a|session-b" })
	void aRequestWhoseSingleValuedHeaderRepeatsWithAnotherValueIsRefused(String header, String first, String second) {
		var request = http().request("scripted").header(header, first).header(header, second);
		if (!header.equals("Content-Type")) {
			request.header("Content-Type", "application/json");
		}
		HttpResponse<String> response = http()
			.send(request.POST(java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(3, "echo"))));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		JsonNode answer = RawHttp.json(response.body());
		assertThat(answer.path("id").isNull()).as("refused before its body is read, as a header the relay cannot read is: %s",
				answer).isTrue();
		assertThat(answer.at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(answer.at("/error/data/reason").asText()).isEqualTo("conflicting_header");
		assertThat(answer.at("/error/message").asText()).contains(header);
		assertThat(TestUpstreams.SCRIPTED.seen()).as("the relay and its upstream cannot read it differently: nothing forwarded")
			.isEmpty();
	}

	@Test
	void aGetWithTwoSessionIdsIsRefused() {
		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "session-a")
			.header("Mcp-Session-Id", "session-b")
			.GET());

		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(RawHttp.json(response.body()).at("/error/data/reason").asText()).isEqualTo("conflicting_header");
		assertThat(TestUpstreams.SCRIPTED.seen()).isEmpty();
	}

	@Test
	void aSingleValuedHeaderRepeatedWithTheSameValueGoesUpstreamAsOneLine() {
		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Content-Type", "application/json")
			.header("Content-Type", "application/json")
			.header("MCP-Protocol-Version", "2025-06-18")
			.header("MCP-Protocol-Version", "2025-06-18")
			.header("Mcp-Session-Id", "session-a")
			.header("Mcp-Session-Id", "session-a")
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString(RawHttp.toolsCall(1, "echo"))));

		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		HttpHeaders upstream = TestUpstreams.SCRIPTED.lastSeen().headers();
		assertThat(upstream.get("Content-Type")).containsExactly("application/json");
		assertThat(upstream.get("MCP-Protocol-Version")).containsExactly("2025-06-18");
		assertThat(upstream.get("Mcp-Session-Id")).containsExactly("session-a");
	}

	@Test
	void anUpstreamsRepeatedContentTypeAndSessionIdReachTheClientAsTheOneLineTheRelayRead() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.addHeader("Content-Type", "application/json")
			.addHeader("Content-Type", "text/event-stream")
			.addHeader("Mcp-Session-Id", "up-1")
			.addHeader("Mcp-Session-Id", "up-2")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));

		HttpResponse<String> response = http().send(http().post("scripted", RawHttp.toolsCall(1, "echo")));

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().allValues("Content-Type")).as("the type the relay read the body as, once")
			.containsExactly("application/json");
		assertThat(response.headers().allValues("Mcp-Session-Id")).as("the session the relay recorded, once")
			.containsExactly("up-1");
		assertThat(response.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	}

	@Test
	void getCarriesLastEventIdAndSession() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(405).send());

		HttpResponse<String> response = http().send(http().request("scripted")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", "s-1")
			.header("Last-Event-ID", "event-41")
			.GET());

		assertThat(response.statusCode()).as("the upstream's 405 is relayed").isEqualTo(405);
		HttpHeaders upstream = TestUpstreams.SCRIPTED.lastSeen().headers();
		assertThat(upstream.getFirst("Last-Event-ID")).isEqualTo("event-41");
		assertThat(upstream.getFirst("Mcp-Session-Id")).isEqualTo("s-1");
		assertThat(TestUpstreams.SCRIPTED.lastSeen().method()).isEqualTo("GET");
	}

}
