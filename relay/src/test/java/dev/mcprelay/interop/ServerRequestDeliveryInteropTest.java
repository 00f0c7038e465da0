package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SseReader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A member's request to the client on its standalone GET stream (sampling here) reaches the client whatever the order
 * in which the client's GET, the member's GET and the client's first call get where they go: the orderings that lost
 * such a request under load, made deterministic with delays. The client is the TypeScript SDK's
 * ({@code interop/sampling-scenario.mjs}: it opens its GET stream and calls a tool at once, and answers the member's
 * {@code sampling/createMessage}); the members are TypeScript SDK servers ({@code interop/member-server.mjs}) whose
 * {@code ask-model} tool asks for sampling on the standalone stream.
 * <ul>
 * <li>the client's GET reaches the relay well after its call (1.5 s, three times the relay's old grace): the relay
 * held each member's stream from the join and kept the request until the client's GET came;</li>
 * <li>a member takes its GET in only 1.5 s after the relay sent it: the call reaches it only once its stream is open
 * (it answered the GET), never before;</li>
 * <li>the member asks while the client has no stream open, between two of its GETs (a client reopens its stream after
 * a network cut or a proxy's idle timeout): the relay held the member's stream meanwhile, and the client's next GET
 * gets the request, whether it names where the client stopped ({@code Last-Event-ID}) or not (the member there keeps
 * no events: it could not send the request again).</li>
 * </ul>
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServerRequestDeliveryInteropTest {

	private static final String DELAY = "1500";

	private static NodePeers.NodeServer members;

	private static NodePeers.NodeServer lateStreams;

	private static NodePeers.NodeServer forgetful;

	/**
	 * A member that takes its GET 6 s late: past the 5 s a call waits for a member the relay has not seen yet; its first
	 * GET also waits for the call that went ahead meanwhile to ask for sampling (a loaded relay's call could otherwise
	 * reach it more than 6 s after that GET and find the stream open, its request sent to a client that never reads it).
	 */
	private static NodePeers.NodeServer moody;

	private static final int MOODY_PORT = dev.mcprelay.testsupport.TestUpstreams.freePort();

	/** A member that takes its GET 10 s late: past its own 7 s {@code timeouts.non-streaming}, so its GET fails. */
	private static NodePeers.NodeServer stalled;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@BeforeAll
	static void startServers() throws Exception {
		NodePeers.requireNode();
		NodePeers.installFromLockfile();
		members = NodePeers.startServer("member-server.mjs");
		lateStreams = NodePeers.startServer("member-server.mjs", Map.of("GET_DELAY_MS", DELAY));
		forgetful = NodePeers.startServer("member-server.mjs", Map.of("EVENT_STORE", "none"));
		moody = NodePeers.startServer("member-server.mjs", MOODY_PORT, Map.of("GET_DELAY_MS", "6000",
				"FIRST_GET_AFTER_ASK", "1"));
		stalled = NodePeers.startServer("member-server.mjs", Map.of("GET_DELAY_MS", "10000"));
	}

	@AfterAll
	static void stopServers() throws Exception {
		if (members != null) {
			members.close();
		}
		if (lateStreams != null) {
			lateStreams.close();
		}
		if (forgetful != null) {
			forgetful.close();
		}
		if (moody != null) {
			moody.close();
		}
		if (stalled != null) {
			stalled.close();
		}
	}

	@DynamicPropertySource
	static void upstreams(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.one.url", () -> members.url());
		registry.add("mcp-relay.servers.two.url", () -> members.url());
		registry.add("mcp-relay.servers.three.url", () -> members.url());
		registry.add("mcp-relay.servers.late.url", () -> lateStreams.url());
		registry.add("mcp-relay.virtual-servers.trio.members", () -> "one,two,three");
		registry.add("mcp-relay.virtual-servers.slow.members", () -> "one,late");
		registry.add("mcp-relay.servers.asker.url", () -> members.url());
		registry.add("mcp-relay.virtual-servers.asking.members", () -> "asker");
		registry.add("mcp-relay.servers.plain.url", () -> forgetful.url());
		registry.add("mcp-relay.virtual-servers.mixed.members", () -> "asker,plain");
		registry.add("mcp-relay.servers.moody.url", () -> "http://127.0.0.1:" + MOODY_PORT + "/mcp");
		registry.add("mcp-relay.virtual-servers.moodily.members", () -> "moody");
		registry.add("mcp-relay.servers.stalled.url", () -> stalled.url());
		registry.add("mcp-relay.servers.stalled.timeouts.non-streaming", () -> "7s");
		registry.add("mcp-relay.virtual-servers.stalling.members", () -> "stalled");
	}

	@Test
	void aClientWhoseGetStreamComesAfterItsCallsGetsEveryMembersRequest() throws Exception {
		JsonNode outcome = new ObjectMapper().readTree(NodePeers.runClient(Map.of("GET_DELAY_MS", DELAY),
				"sampling-scenario.mjs", relay("trio"), "3", "3", "one_ask-model", "two_ask-model", "three_ask-model"));

		assertThat(outcome.get("lost").asInt()).as("requests lost: %s", outcome).isZero();
		assertThat(outcome.get("failed").asInt()).as("calls failed: %s", outcome).isZero();
		assertThat(outcome.get("answered").asInt()).as("every call answered: %s", outcome).isEqualTo(9);
	}

	@Test
	void aMemberThatTakesItsGetLateGetsTheCallOnlyOnceItsStreamIsOpen() throws Exception {
		JsonNode outcome = new ObjectMapper().readTree(NodePeers.runClient("sampling-scenario.mjs", relay("slow"), "3",
				"3", "late_ask-model", "one_ask-model"));

		assertThat(outcome.get("lost").asInt()).as("requests lost: %s", outcome).isZero();
		assertThat(outcome.get("failed").asInt()).as("calls failed: %s", outcome).isZero();
		assertThat(outcome.get("answered").asInt()).as("every call answered: %s", outcome).isEqualTo(6);
	}

	@Test
	void aMembersRequestWhileTheClientHasNoStreamReachesTheClientsNextStream() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "asking", "{\"sampling\":{}}");
		double ended = gets("asking");
		stream(http, "asking", session, null).body().close();
		awaitStreamEnded("asking", ended);

		CompletableFuture<HttpResponse<String>> call = askWhileNoStreamIsOpen(session, members, "asker_ask-model");
		List<SseReader.Event> next = SseReader.read(stream(http, "asking", session, null).body(), 1,
				Duration.ofSeconds(20));

		assertThat(answer(session, next.get(0), call)).isEqualTo("model said: hello");
	}

	@Test
	void aMembersRequestWhileTheClientHasNoStreamReachesTheNextStreamThatNamesWhereTheClientStopped() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "mixed", "{\"sampling\":{}}");
		double ended = gets("mixed");
		HttpResponse<InputStream> first = stream(http, "mixed", session, null);
		session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"asker_tick\","
				+ "\"arguments\":{\"label\":\"x\",\"perTick\":1,\"intervalMs\":10,\"total\":1}}}");
		String lastEventId = SseReader.read(first.body(), 1, Duration.ofSeconds(20)).get(0).id();
		assertThat(lastEventId).as("asker keeps its events: they have ids").isNotNull();
		awaitStreamEnded("mixed", ended);

		// plain keeps no events: what it sends with no stream open is gone for good, at the member
		CompletableFuture<HttpResponse<String>> call = askWhileNoStreamIsOpen(session, forgetful, "plain_ask-model");
		List<SseReader.Event> next = SseReader.read(stream(http, "mixed", session, lastEventId).body(), 1,
				Duration.ofSeconds(20));

		assertThat(answer(session, next.get(0), call)).isEqualTo("model said: hello");
	}

	/**
	 * A member that takes its GET 6 s late, past the 5 s a call waits for the stream of a member the relay has not seen
	 * yet: the first call goes ahead of the stream, and the member drops the sampling request it sends meanwhile (it
	 * has no stream). Once the member answers its GET with its headers alone, that call, which would wait for ever (the
	 * member waits for an answer the client never gets), is answered with an error naming the member, counted
	 * ({@code stream_not_open}) and logged; and from then on a call waits for the member's stream as long as its GET may
	 * take, so the next session loses nothing.
	 */
	@Test
	void aMemberSlowerToOpenItsStreamThanTheFirstWaitCostsOneCallAnErrorNeverAHangAndIsWaitedForFromThenOn()
			throws Exception {
		RawHttp http = new RawHttp(port);
		double ahead = undelivered("moodily", "moody", "call", "stream_not_open");
		McpSession first = McpSession.open(http, "moodily", "{\"sampling\":{}}");
		HttpResponse<InputStream> firstStream = stream(http, "moodily", first, null);
		CompletableFuture<HttpResponse<String>> lost = CompletableFuture
			.supplyAsync(() -> first.post(RawHttp.toolsCall(2, "moody_ask-model")));

		List<JsonNode> answered = RawHttp.messagesOf(lost.get(30, TimeUnit.SECONDS));
		JsonNode error = answered.get(answered.size() - 1);
		assertThat(error.path("id").asInt()).as("the call that went ahead, answered: %s", answered).isEqualTo(2);
		assertThat(error.at("/error/data/reason").asText()).as("%s", error).isEqualTo("stream_not_open");
		assertThat(error.at("/error/data/member").asText()).as("%s", error).isEqualTo("moody");
		assertThat(undelivered("moodily", "moody", "call", "stream_not_open")).as("counted").isEqualTo(ahead + 1);
		firstStream.body().close();

		McpSession next = McpSession.open(http, "moodily", "{\"sampling\":{}}");
		HttpResponse<InputStream> nextStream = stream(http, "moodily", next, null);
		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> next.post(RawHttp.toolsCall(3, "moody_ask-model")));
		List<SseReader.Event> asked = SseReader.read(nextStream.body(), 1, Duration.ofSeconds(30));

		assertThat(answer(next, asked.get(0), call)).as("the next session's call waited for the member's stream")
			.isEqualTo("model said: hello");
		assertThat(undelivered("moodily", "moody", "call", "stream_not_open")).as("nothing more went ahead")
			.isEqualTo(ahead + 1);
		nextStream.body().close();
	}

	/**
	 * A member whose GET fails (it takes it later than its {@code timeouts.non-streaming}: {@code upstream_timeout})
	 * had no stream for the call that went ahead of it (after the 5 s a call waits for a member not seen yet), as one
	 * that answers with its headers alone: the call is counted and ended with {@code stream_not_open}, never left
	 * waiting for the answer to a request the member could not send (cold review G, finding 4: it hung until the
	 * client's own timeout, nothing counted).
	 */
	@Test
	void aCallThatWentAheadOfAGetThatThenFailedIsCountedAndEndedNeverAHang() throws Exception {
		RawHttp http = new RawHttp(port);
		double ahead = undelivered("stalling", "stalled", "call", "stream_not_open");
		McpSession session = McpSession.open(http, "stalling", "{\"sampling\":{}}");
		HttpResponse<InputStream> stream = stream(http, "stalling", session, null);

		HttpResponse<String> call = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(5, "stalled_ask-model")))
			.get(30, TimeUnit.SECONDS);

		List<JsonNode> answered = RawHttp.messagesOf(call);
		JsonNode error = answered.get(answered.size() - 1);
		assertThat(error.path("id").asInt()).as("the call that went ahead, answered: %s", answered).isEqualTo(5);
		assertThat(error.at("/error/data/reason").asText()).as("%s", error).isEqualTo("stream_not_open");
		assertThat(undelivered("stalling", "stalled", "call", "stream_not_open")).as("counted").isEqualTo(ahead + 1);
		stream.body().close();
	}

	/**
	 * A member's request held for a client that opens no GET stream is lost when the session's wait for one ends: it is
	 * counted, and answered to the member with an error, so that the member's tool, waiting for the client's model,
	 * ends, and the client's call with it, instead of waiting for ever.
	 */
	@Test
	void aMembersRequestThatNoClientStreamTakesIsAnsweredToTheMemberWithAnErrorAndTheCallEnds() throws Exception {
		RawHttp http = new RawHttp(port);
		double lostBefore = undelivered("asking", "asker", "request", "no_client_stream");
		McpSession session = McpSession.open(http, "asking", "{\"sampling\":{}}");

		HttpResponse<String> call = CompletableFuture.supplyAsync(() -> session.post(RawHttp.toolsCall(4, "asker_ask-model")))
			.get(40, TimeUnit.SECONDS);

		List<JsonNode> answered = RawHttp.messagesOf(call);
		assertThat(answered.get(answered.size() - 1).toString()).as("the member's tool failed on the relay's error")
			.contains("could not deliver this request to the client");
		assertThat(undelivered("asking", "asker", "request", "no_client_stream")).isEqualTo(lostBefore + 1);
	}

	private double undelivered(String virtualServer, String member, String kind, String reason) {
		Counter counter = registry.find(RelayMeters.VIRTUAL_UNDELIVERED)
			.tag(RelayMeters.VIRTUAL_SERVER, virtualServer)
			.tag(RelayMeters.SERVER, member)
			.tag(RelayMeters.KIND, kind)
			.tag(RelayMeters.REASON, reason)
			.counter();
		return counter == null ? 0 : counter.count();
	}

	/** Waits until the relay has seen one more client GET of {@code server} end than {@code ended}. */
	private void awaitStreamEnded(String server, double ended) {
		await().atMost(Duration.ofSeconds(20)).until(() -> gets(server) > ended);
	}

	/** Calls {@code tool} (ask-model) and waits until its member has sent its sampling request (or dropped it). */
	private static CompletableFuture<HttpResponse<String>> askWhileNoStreamIsOpen(McpSession session,
			NodePeers.NodeServer member, String tool) throws Exception {
		int asked = NodePeers.memberStats(member.port()).path("asked").asInt();
		CompletableFuture<HttpResponse<String>> call = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(2, tool)));
		await().atMost(Duration.ofSeconds(20))
			.until(() -> NodePeers.memberStats(member.port()).path("asked").asInt() > asked);
		return call;
	}

	/** Answers the sampling request {@code request}; what the call then answered. */
	private static String answer(McpSession session, SseReader.Event request,
			CompletableFuture<HttpResponse<String>> call) throws Exception {
		assertThat(request.data().path("method").asText()).as("%s", request.data()).isEqualTo("sampling/createMessage");
		session.post("{\"jsonrpc\":\"2.0\",\"id\":" + request.data().get("id") + ",\"result\":{\"role\":\"assistant\","
				+ "\"model\":\"m\",\"content\":{\"type\":\"text\",\"text\":\"hello\"}}}");
		List<JsonNode> answered = RawHttp.messagesOf(call.get(20, TimeUnit.SECONDS));
		return answered.get(answered.size() - 1).at("/result/content/0/text").asText();
	}

	private static HttpResponse<InputStream> stream(RawHttp http, String server, McpSession session,
			String lastEventId) {
		HttpRequest.Builder request = http.request(server).header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
		if (lastEventId != null) {
			request.header("Last-Event-ID", lastEventId);
		}
		HttpResponse<InputStream> response = http.open(request.GET());
		assertThat(response.statusCode()).isEqualTo(200);
		return response;
	}

	/** The client GETs of {@code server} the relay has seen end. */
	private double gets(String server) {
		return registry.find(RelayMeters.REQUESTS)
			.tag(RelayMeters.SERVER, server)
			.tag(RelayMeters.HTTP_METHOD, "GET")
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private String relay(String server) {
		return "http://127.0.0.1:" + port + "/mcp/" + server;
	}

}
