package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What the {@code Mcp-Param-*} check lists of a server's tools, and when (review 43h F-2, F-3), against a scripted
 * upstream whose {@code tools/list} can be made to hang or fail (no real server does that on demand): its tool
 * {@code route} declares {@code port} as {@code Port}.
 * <ul>
 * <li>A definition the view saw decides the check at once however old: a relisting that hangs runs in the background
 * (one per view), and calls are neither kept waiting nor refused; only a view that never saw the list is refused
 * {@code header_uncheckable} when the list fails.</li>
 * <li>A catalogue past its age that lacks the called tool is listed again before it decides (review 43j N-8).</li>
 * <li>A call a rate limit refuses lists nothing.</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ParameterHeaderListingsTest {

	static final ScriptedUpstream UPSTREAM = new ScriptedUpstream();

	static final Duration MAX_AGE = Duration.ofMillis(300);

	/** Whether {@code tools/list} on {@code /hang} is held (until {@link #LISTS_GO}). */
	static volatile boolean listsHang;

	static final Sinks.Empty<Void> LISTS_GO = Sinks.empty();

	/** Whether {@code tools/list} on {@code /grow} lists {@code added} too (declaring {@code port} as {@code Port}). */
	static volatile boolean toolAdded;

	static {
		UPSTREAM.scriptWithBody((request, response, body) -> {
			if (body.isEmpty() || !body.contains("\"id\"")) {
				return response.status(202).send();
			}
			JsonNode message = RawHttp.json(body);
			String method = message.path("method").asText();
			if (method.equals("initialize")) {
				return ScriptedUpstream.initializeAnswer(response, body, "scripted", "s-1");
			}
			String id = message.get("id").toString();
			String result;
			if (method.equals("tools/list")) {
				if (request.uri().contains("/fail")) {
					return response.status(500).sendString(Mono.just("the catalogue is down"));
				}
				result = "{\"tools\":[{\"name\":\"route\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
						+ "{\"port\":{\"type\":\"integer\",\"x-mcp-header\":\"Port\"}}}}]}";
				if (request.uri().contains("/grow") && toolAdded) {
					result = result.replace("]}", ",{\"name\":\"added\",\"inputSchema\":{\"type\":\"object\","
							+ "\"properties\":{\"port\":{\"type\":\"integer\",\"x-mcp-header\":\"Port\"}}}}]}");
				}
				if (request.uri().contains("/stall")) {
					return LISTS_GO.asMono().then(response.status(500).send());
				}
				if (request.uri().contains("/hang") && listsHang) {
					String answer = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}";
					return LISTS_GO.asMono().then(response.header("Content-Type", "application/json")
						.sendString(Mono.just(answer)).then());
				}
			}
			else if (method.equals("tools/call")) {
				result = "{\"content\":[{\"type\":\"text\",\"text\":\"ran\"}]}";
			}
			else {
				result = "{}";
			}
			return response.header("Content-Type", "application/json")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}"));
		});
	}

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "none");
		registry.add("mcp-relay.servers.hangs.url", () -> UPSTREAM.url("/hang/mcp"));
		registry.add("mcp-relay.servers.hangs.tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		registry.add("mcp-relay.servers.hangs.timeouts.non-streaming", () -> "20s");
		registry.add("mcp-relay.servers.grows.url", () -> UPSTREAM.url("/grow/mcp"));
		registry.add("mcp-relay.servers.grows.tools.annotations-max-age", () -> MAX_AGE.toMillis() + "ms");
		registry.add("mcp-relay.servers.fails.url", () -> UPSTREAM.url("/fail/mcp"));
		registry.add("mcp-relay.servers.fails.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.fails.headers[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.servers.limited.url", () -> UPSTREAM.url("/limited/mcp"));
		registry.add("mcp-relay.servers.limited.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.limited.headers[0].from-request-header", () -> "X-Tenant");
		for (String server : List.of("stalls", "injectfails")) {
			registry.add("mcp-relay.servers." + server + ".url",
					() -> UPSTREAM.url(server.equals("stalls") ? "/stall/mcp" : "/failinject/mcp"));
			registry.add("mcp-relay.servers." + server + ".protocol-versions", () -> "2026-07-28");
			registry.add("mcp-relay.servers." + server + ".headers[0].name", () -> "X-Tenant");
			registry.add("mcp-relay.servers." + server + ".headers[0].from-request-header", () -> "X-Tenant");
			registry.add("mcp-relay.servers." + server + ".arguments.inject[0].name", () -> "port");
			registry.add("mcp-relay.servers." + server + ".arguments.inject[0].from-request-header", () -> "X-Port");
		}
		registry.add("mcp-relay.rate-limits[0].name", () -> "two-calls");
		registry.add("mcp-relay.rate-limits[0].match.server", () -> "limited");
		registry.add("mcp-relay.rate-limits[0].match.tool", () -> "route");
		registry.add("mcp-relay.rate-limits[0].limit", () -> "2");
		registry.add("mcp-relay.rate-limits[0].period", () -> "1h");
	}

	@AfterAll
	static void stop() {
		LISTS_GO.tryEmitEmpty();
		UPSTREAM.close();
	}

	@Test
	void aKeptDefinitionOfAnyAgeDecidesWhileTheListHangs() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "hangs");
		assertThat(call(session, 1, 8080, "8080", null).has("result")).as("listed, checked, ran").isTrue();

		Thread.sleep(MAX_AGE.toMillis() + 1);
		listsHang = true;
		int before = lists("/hang");
		for (int id = 2; id < 6; id++) {
			JsonNode ran = call(session, id, 8080, "8080", null);
			assertThat(ran.has("result")).as("decided from the kept definition, not refused: %s", ran).isTrue();
		}
		JsonNode refused = call(session, 6, 8080, "22", null);
		assertThat(refused.at("/error/data/reason").asText()).as("the kept declaration still holds: %s", refused)
			.isEqualTo("header_mismatch");
		assertThat(lists("/hang") - before).as("one relisting in the background, however many calls").isEqualTo(1);
	}

	/**
	 * A catalogue older than {@code annotations-max-age} that lacks the called tool does not say the tool declares
	 * nothing: the server may have added it since (review 43j N-8: its contradicting header went upstream unchecked,
	 * past a policy on the body). The view lists again first, and the added tool's declaration decides.
	 */
	@Test
	void anOldCatalogueWithoutTheToolDoesNotSayItDeclaresNothing() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "grows");
		assertThat(call(session, 1, 8080, "8080", null).has("result")).as("listed without 'added', ran").isTrue();

		toolAdded = true;
		Thread.sleep(MAX_AGE.toMillis() + 1);
		JsonNode refused = call(session, 2, "added", 1, "22", null);
		assertThat(refused.at("/error/data/reason").asText()).as("the added tool's declaration decides: %s", refused)
			.isEqualTo("header_mismatch");
		assertThat(call(session, 3, "added", 22, "22", null).has("result")).as("its agreeing header runs").isTrue();
	}

	@Test
	void aViewThatNeverSawTheListIsUncheckableWhenTheListFails() {
		McpSession session = McpSession.open(new RawHttp(port), "fails");
		JsonNode refused = call(session, 1, 8080, "8080", "acme");
		assertThat(refused.at("/error/data/reason").asText()).as("%s", refused).isEqualTo("header_uncheckable");
		assertThat(call(session, 2, 8080, null, "acme").has("result")).as("no header: nothing to check").isTrue();
	}

	/**
	 * Review 43j N-2: where the relay only writes the headers (arguments.inject changed a 2026-07-28 call, the client
	 * sent no {@code Mcp-Param-*} header), a call of a view that never listed waits for a list that hangs at most a
	 * tenth of {@code timeouts.non-streaming} (6 s of 60 s), never the listing bound (48 s), and goes on without the
	 * header; the listing runs on once, for every call of the view.
	 */
	@Test
	void aCallWhoseHeadersAreOnlyWrittenDoesNotWaitForAListThatHangs() {
		long began = System.nanoTime();
		for (int id = 1; id <= 3; id++) {
			JsonNode ran = call2026("stalls", id, "hangs-" + id % 2, null);
			assertThat(ran.at("/result/content/0/text").asText()).as("went on: %s", ran).isEqualTo("ran");
		}
		Duration took = Duration.ofNanos(System.nanoTime() - began);
		assertThat(took).as("three calls, each waiting a share of the call's bound, not the listing bound of 48 s")
			.isLessThan(Duration.ofSeconds(48));
		assertThat(lists("/stall")).as("one listing per view, joined by the later call of the view").isEqualTo(2);
		assertThat(UPSTREAM.seen().stream().filter(seen -> seen.uri().startsWith("/stall")
				&& seen.body().contains("tools/call")).map(seen -> seen.headers().getFirst("Mcp-Param-Port")))
			.as("no declaration known in time: no header written").containsOnlyNulls().hasSize(3);
	}

	/**
	 * Review 43l L-1: a view's listing that failed with an answer (here an error the server gives at once) is not
	 * held against the view: it may be the request's own (a session the server forgot), so each call of the view,
	 * whether it checks a header (refused {@code header_uncheckable}) or only has one written (going on without it),
	 * lists again, at the cost of the server's prompt answer and no wait; only a listing that hung is remembered
	 * (PublishedItemsTest, PublishedCataloguesAgeTest).
	 */
	@Test
	void aListingThatFailedWithAnAnswerIsNotHeldAgainstTheView() {
		JsonNode refused = call2026("injectfails", 1, "acme", "8080");
		assertThat(refused.at("/error/data/reason").asText()).as("%s", refused).isEqualTo("header_uncheckable");
		JsonNode again = call2026("injectfails", 2, "acme", "8080");
		assertThat(again.at("/error/data/reason").asText()).as("%s", again).isEqualTo("header_uncheckable");
		for (int id = 3; id <= 5; id++) {
			JsonNode ran = call2026("injectfails", id, "acme", null);
			assertThat(ran.at("/result/content/0/text").asText()).as("went on: %s", ran).isEqualTo("ran");
		}
		assertThat(lists("/failinject")).as("not remembered: each call of the view listed again").isEqualTo(5);
		assertThat(call2026("injectfails", 6, "other", null).has("result")).isTrue();
		assertThat(lists("/failinject")).as("another view lists for itself").isEqualTo(6);
	}

	@Test
	void aCallTheRateLimitRefusesListsNothing() {
		McpSession session = McpSession.open(new RawHttp(port), "limited");
		int ran = 0;
		for (int id = 1; id <= 6; id++) {
			JsonNode answer = call(session, id, 8080, "8080", UUID.randomUUID().toString());
			ran += answer.has("result") ? 1 : 0;
			if (!answer.has("result")) {
				assertThat(answer.at("/error/data/reason").asText()).as("%s", answer).isEqualTo("rate_limited");
			}
		}
		assertThat(ran).isEqualTo(2);
		assertThat(lists("/limited")).as("a listing for each call that ran, none for a refused one").isEqualTo(2);
	}

	/** {@code tools/call route} with {@code port}, its {@code Mcp-Param-Port} header and {@code X-Tenant} if given. */
	private static JsonNode call(McpSession session, int id, int port, String header, String tenant) {
		return call(session, id, "route", port, header, tenant);
	}

	/** {@code tools/call} of {@code tool} with {@code port}, its {@code Mcp-Param-Port} and {@code X-Tenant} if given. */
	private static JsonNode call(McpSession session, int id, String tool, int port, String header, String tenant) {
		var request = session.request("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"" + tool + "\",\"arguments\":{\"port\":" + port + "}}}");
		if (header != null) {
			request.header("Mcp-Param-Port", header);
		}
		if (tenant != null) {
			request.header("X-Tenant", tenant);
		}
		HttpResponse<String> response = new RawHttp(0).send(request);
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as("%d %s", response.statusCode(), response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	/**
	 * A 2026-07-28 {@code tools/call route} to {@code server} with no {@code port} of its own, {@code X-Port: 8443}
	 * for arguments.inject to add, {@code X-Tenant} and, if given, {@code Mcp-Param-Port}.
	 */
	private JsonNode call2026(String server, int id, String tenant, String header) {
		RawHttp http = new RawHttp(port);
		var request = http.post(server, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"route\",\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/"
				+ "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","
				+ "\"version\":\"1\"},\"io.modelcontextprotocol/clientCapabilities\":{}}}}")
			.header("MCP-Protocol-Version", "2026-07-28")
			.header("Mcp-Method", "tools/call")
			.header("Mcp-Name", "route")
			.header("X-Tenant", tenant)
			.header("X-Port", "8443");
		if (header != null) {
			request.header("Mcp-Param-Port", header);
		}
		HttpResponse<String> response = http.send(request);
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as("%d %s", response.statusCode(), response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private static int lists(String path) {
		return (int) UPSTREAM.seen().stream()
			.filter(seen -> seen.uri().startsWith(path) && seen.body().contains("\"tools/list\""))
			.count();
	}

}
