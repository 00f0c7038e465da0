package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.security.RelayMac;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.netty.http.client.HttpClient;

/**
 * Review 46b: what one upstream session holds for a 2026-07-28 client of a 2025 server (the MCP Java SDK's
 * {@link SdkMcpUpstream}) is reached whichever version bridge sends the request: the bridge a reload made for the same
 * server, or another replica's (each a {@link VersionBridge} over one session store, as replicas share Redis).
 */
class SharedUpstreamSessionsTest {

	private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
			+ "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":"
			+ "{\"name\":\"shared\",\"version\":\"1\"},\"progressToken\":\"p1\"}";

	private static final String SAMPLING_META = META.replace("clientCapabilities\":{}",
			"clientCapabilities\":{\"sampling\":{}}").replace("\"shared\"", "\"asker\"");

	private static SdkMcpUpstream sdk;

	private static final UpstreamTransport HTTP = new StreamableHttpTransport(HttpClient.create());

	@BeforeAll
	static void start() {
		// classes first used on an event loop are loaded here, where BlockHound allows reading their jars
		org.springframework.core.io.buffer.DataBufferUtils.release(
				org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance.allocateBuffer(1));
		dev.mcprelay.session.SessionIds.mint();
		sdk = new SdkMcpUpstream();
	}

	@AfterAll
	static void stop() throws Exception {
		sdk.close();
	}

	/**
	 * HIGH 1: two calls in one upstream session, the first sent by the bridge before a reload, the second by the bridge
	 * after it; each bridge used to number its ids from 1, so the two went under one id and an answer could go to the
	 * other call. Each now goes under an id no other bridge mints, and takes only its own answer.
	 */
	@Test
	void twoCallsInOneSessionFromTwoBridgesGoUnderTheirOwnIdsAndTakeTheirOwnAnswers() throws Exception {
		BridgedStreamsTest.Kept store = new BridgedStreamsTest.Kept();
		VersionBridge beforeTheReload = bridge(store);
		VersionBridge afterTheReload = bridge(store);
		sdk.clearSeen();
		sdk.resetProgressGate();
		CompletableFuture<String> first = send(beforeTheReload, "{\"jsonrpc\":\"2.0\",\"id\":101,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{}," + META + "}}");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (calls().isEmpty()) {
			assertThat(first).as("the first call waits for its answer").isNotDone();
			assertThat(System.nanoTime()).as("the server took the first call").isLessThan(deadline);
			Thread.sleep(10);
		}
		String second = send(afterTheReload, "{\"jsonrpc\":\"2.0\",\"id\":202,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"echo\",\"arguments\":{\"message\":\"second\"}," + META + "}}").get(60, TimeUnit.SECONDS);
		sdk.releaseProgress();
		String firstAnswer = first.get(60, TimeUnit.SECONDS);

		List<JsonNode> sent = calls();
		assertThat(sent).hasSize(2);
		assertThat(sent.get(0).path("id").asText()).as("ids unique across bridges")
			.isNotEqualTo(sent.get(1).path("id").asText());
		assertThat(sdk.seen().stream().filter(seen -> "initialize".equals(seen.method().equals("POST")
				? seen.json().path("method").asText() : "")).count()).as("one upstream session").isEqualTo(1);
		assertThat(second).as("the second call's own answer").contains("\"id\":202").contains("second")
			.doesNotContain("\"id\":101");
		assertThat(firstAnswer).as("the first call's own answer").contains("\"id\":101").contains("third")
			.doesNotContain("\"id\":202");
	}

	/**
	 * MED 4: the key that signs a held call's requestState is the relay's ({@code sessions.secret}), not a bridge's:
	 * the client's retry after a reload that changed the server continues the call the bridge before the reload held
	 * (what is held is kept per server, as direction 1's rounds are), and a retry that reached another replica (the same
	 * secret, the call not held there) is answered {@code input_required_expired}, not taken for a forgery.
	 */
	@Test
	void aHeldCallGoesOnThroughTheBridgeAReloadMadeAndIsExpiredOnAnotherReplica() throws Exception {
		String secret = "a secret every replica of the relay shares";
		BridgedStreamsTest.Kept store = new BridgedStreamsTest.Kept();
		VersionBridge beforeTheReload = bridge(store, new RelayMac(secret));
		VersionBridge afterTheReload = bridge(store, new RelayMac(secret));
		VersionBridge anotherReplica = bridge(new BridgedStreamsTest.Kept(), new RelayMac(secret));
		JsonNode asked = lastMessage(send(beforeTheReload, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"ask-model\",\"arguments\":{}," + SAMPLING_META + "}}")
			.get(60, TimeUnit.SECONDS)).path("result");
		assertThat(asked.path("resultType").asText()).as("%s", asked).isEqualTo("input_required");
		String key = asked.path("inputRequests").fieldNames().next();
		// the id goes in by its place, not by a placeholder: a requestState is Base64url, and may hold any two letters
		java.util.function.IntFunction<String> retry = id -> "{\"jsonrpc\":\"2.0\",\"id\":" + id
				+ ",\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"ask-model\",\"arguments\":{},\"inputResponses\":{\"" + key + "\":{\"role\":\"assistant\","
				+ "\"content\":{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"m\"}},\"requestState\":"
				+ asked.path("requestState") + "," + SAMPLING_META + "}}";

		JsonNode elsewhere = lastMessage(send(anotherReplica, retry.apply(2)).get(60, TimeUnit.SECONDS));
		assertThat(elsewhere.at("/error/code").asInt()).as("%s", elsewhere).isEqualTo(-32603);
		assertThat(elsewhere.at("/error/data/reason").asText()).isEqualTo("input_required_expired");

		JsonNode resumed = lastMessage(send(afterTheReload, retry.apply(3)).get(60, TimeUnit.SECONDS));
		assertThat(resumed.path("id").asInt()).as("%s", resumed).isEqualTo(3);
		assertThat(resumed.at("/result/content/0/text").asText()).as("%s", resumed).isEqualTo("model said: hello");
		assertThat(beforeTheReload.heldCalls() + afterTheReload.heldCalls()).as("nothing left held").isZero();
	}

	/**
	 * MED 3: a replica that knows nothing yet of the server's versions (another replica, or a restart) bridges the
	 * request in the caller's upstream session it finds in the store, where it handed the server's refusal on. What
	 * it learns comes from its own requests (review 46j, N1: a session opened with a client's headers teaches
	 * nothing), and the caller's session is the one the first opened.
	 */
	@Test
	void aReplicaThatKnowsNoVersionsYetLearnsThemFromTheSessionItFindsStored() throws Exception {
		BridgedStreamsTest.Kept store = new BridgedStreamsTest.Kept();
		VersionBridge first = unpinned(store);
		VersionBridge second = unpinned(store);
		String call = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"message\":\"learnt\"}," + META.replace("\"shared\"", "\"learner\"") + "}}";
		sdk.clearSeen();

		JsonNode answered = lastMessage(send(first, call.replace("ID", "1")).get(60, TimeUnit.SECONDS));
		assertThat(answered.at("/result/content/0/text").asText()).as("%s", answered).isEqualTo("learnt");
		assertThat(first.versions().known()).containsExactly("2025-11-25");
		JsonNode elsewhere = lastMessage(send(second, call.replace("ID", "2")).get(60, TimeUnit.SECONDS));
		assertThat(elsewhere.at("/result/content/0/text").asText()).as("%s", elsewhere).isEqualTo("learnt");
		assertThat(second.versions().known()).as("learnt from its own initialize").containsExactly("2025-11-25");
		assertThat(sdk.seen().stream().filter(seen -> seen.method().equals("POST")
				&& "initialize".equals(seen.json().path("method").asText())
				&& !"mcp-relay".equals(seen.json().at("/params/clientInfo/name").asText())).count())
			.as("the session the first opened").isEqualTo(1);
	}

	private static VersionBridge unpinned(BridgedStreamsTest.Kept store) {
		return new VersionBridge(HTTP, "e", new ServerVersions("e", List.of()), 1024 * 1024, store,
				BridgedStreamsTest.flightsOf(store), Duration.ofSeconds(30), new RelayMac((String) null),
				Duration.ofSeconds(30));
	}

	private static List<JsonNode> calls() {
		return sdk.seen().stream().filter(seen -> seen.method().equals("POST")).map(SdkMcpUpstream.Seen::json)
			.filter(message -> "tools/call".equals(message.path("method").asText()))
			.toList();
	}

	static VersionBridge bridge(BridgedStreamsTest.Kept store) {
		return bridge(store, new RelayMac((String) null));
	}

	static VersionBridge bridge(BridgedStreamsTest.Kept store, RelayMac mac) {
		return new VersionBridge(HTTP, "e", new ServerVersions("e", List.of("2025-11-25")), 1024 * 1024, store,
				BridgedStreamsTest.flightsOf(store), Duration.ofSeconds(30), mac, Duration.ofSeconds(30));
	}

	/** What the bridge answers {@code body}, a 2026-07-28 request of caller alice's: its status and body, as text. */
	static CompletableFuture<String> send(VersionBridge bridge, String body) {
		return send(bridge, sdk.url("/mcp"), body);
	}

	/** What the bridge answers {@code body}, sent to {@code url}. */
	static CompletableFuture<String> send(VersionBridge bridge, String url, String body) {
		return send(bridge, url, body, headers -> {
		});
	}

	/** What the bridge answers {@code body}, sent to {@code url} with the headers {@code changed} leaves. */
	static CompletableFuture<String> send(VersionBridge bridge, String url, String body,
			java.util.function.Consumer<HttpHeaders> changed) {
		JsonNode message = RawHttp.json(body);
		HttpHeaders headers = new HttpHeaders();
		headers.set("Mcp-Method", message.path("method").asText());
		if (message.at("/params/name").isTextual()) {
			headers.set("Mcp-Name", message.at("/params/name").asText());
		}
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		headers.set("MCP-Protocol-Version", "2026-07-28");
		changed.accept(headers);
		UpstreamRequest request = new UpstreamRequest("e", HttpMethod.POST, URI.create(url), headers,
				body.getBytes(StandardCharsets.UTF_8), "alice", null);
		CompletableFuture<String> answered = new CompletableFuture<>();
		bridge.send(request, response -> response.body().map(buffer -> {
			String text = buffer.toString(StandardCharsets.UTF_8);
			org.springframework.core.io.buffer.DataBufferUtils.release(buffer);
			return text;
		}).collectList().doOnNext(texts -> answered.complete(response.statusCode().value() + " "
				+ String.join("", texts))).then()).subscribe(null, answered::completeExceptionally);
		return answered;
	}

	static JsonNode lastMessage(String answer) {
		List<String> data = answer.lines().filter(line -> line.startsWith("data:")).toList();
		String json = data.isEmpty() ? answer.substring(answer.indexOf(' ') + 1) : data.get(data.size() - 1)
			.substring(5).trim();
		return RawHttp.json(json);
	}

}
