package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.NonReadingClient;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

/**
 * A virtual server composing real MCP servers (the Java SDK's, over SSE and over JSON, and one that is down), driven
 * by the SDK's client: one session over all members, merged and prefixed lists, calls routed by prefix, a member's
 * sampling request answered by the client, resources routed by URI, and every bad input answered clearly.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerTest {

	/** A second SDK server, so that two members are separate servers with separate sessions. */
	static final SdkMcpUpstream SECOND = new SdkMcpUpstream();

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

	private final List<McpSchema.CreateMessageRequest> sampled = new CopyOnWriteArrayList<>();

	private final List<McpSchema.LoggingMessageNotification> logged = new CopyOnWriteArrayList<>();

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.servers.alpha.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.beta.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.gamma.url", () -> SECOND.url("/mcp"));
		registry.add("mcp-relay.servers.down.url", () -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/mcp");
		registry.add("mcp-relay.servers.down.timeouts.non-streaming", () -> "2s");
		registry.add("mcp-relay.virtual-servers.all.members[0]", () -> "alpha");
		registry.add("mcp-relay.virtual-servers.all.members[1]", () -> "beta");
		registry.add("mcp-relay.virtual-servers.all.members[2]", () -> "gamma");
		registry.add("mcp-relay.virtual-servers.all.members[3]", () -> "down");
		registry.add("mcp-relay.virtual-servers.all.prefix.gamma", () -> "g.");
		registry.add("mcp-relay.virtual-servers.solo.members[0]", () -> "alpha");
		registry.add("mcp-relay.virtual-servers.streamless.members[0]", () -> "beta");
		registry.add("mcp-relay.virtual-servers.streamless-or-down.members", () -> "beta,down");
		registry.add("mcp-relay.virtual-servers.solo.tool-prefix", () -> "");
		registry.add("mcp-relay.virtual-servers.flat.members", () -> "gamma,alpha");
		registry.add("mcp-relay.virtual-servers.flat.tool-prefix", () -> "");
		registry.add("mcp-relay.virtual-servers.search.members", () -> "alpha,beta");
		registry.add("mcp-relay.virtual-servers.search.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.virtual-servers.search.tool-search.always-expose[0]", () -> "beta_whoami");
		registry.add("mcp-relay.servers.small.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.small.max-buffered-body", () -> "1KB");
		registry.add("mcp-relay.virtual-servers.tight.members", () -> "alpha,small");
		registry.add("mcp-relay.default-server", () -> "all");
		registry.add("mcp-relay.servers.beta.tools.deny[0]", () -> "secret_*");
		registry.add("mcp-relay.rate-limits[0].name", () -> "alpha-audits");
		registry.add("mcp-relay.rate-limits[0].match.server", () -> "alpha");
		registry.add("mcp-relay.rate-limits[0].match.tool", () -> "secret_audit");
		registry.add("mcp-relay.rate-limits[0].limit", () -> "1");
		registry.add("mcp-relay.rate-limits[0].period", () -> "1h");
	}

	@AfterEach
	void closeClients() {
		clients.forEach(McpSyncClient::closeGracefully);
	}

	@AfterAll
	static void stopSecond() throws Exception {
		SECOND.close();
	}

	@Test
	void oneSessionListsEveryUsableMembersToolsPrefixedAndTellsWhichMemberIsDown() {
		McpSyncClient client = client("/mcp/all");
		McpSchema.InitializeResult init = client.initialize();

		assertThat(init.serverInfo().name()).isEqualTo("all");
		assertThat(init.capabilities().tools()).as("the union of the members' capabilities").isNotNull();
		assertThat(init.capabilities().prompts()).isNotNull();
		List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
		assertThat(names).contains("alpha_echo", "alpha_ask-model", "beta_echo", "beta_slow", "g.echo")
			.noneMatch(name -> name.startsWith("down_"))
			.doesNotHaveDuplicates();
		assertThat(names.indexOf("alpha_echo")).as("configuration order").isLessThan(names.indexOf("beta_echo"));
		// the SDK's sync client hands a notification to its consumer on another thread, not before the list's result
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(logged).anySatisfy(message -> {
			assertThat(message.level()).isEqualTo(McpSchema.LoggingLevel.WARNING);
			assertThat(String.valueOf(message.data())).contains("'down'");
		}));
		assertThat(registry.find(RelayMeters.VIRTUAL_MEMBER_UNAVAILABLE).tag(RelayMeters.SERVER, "down").counter())
			.isNotNull();
	}

	@Test
	void aToolsCallWithoutAnIdIsRefusedAndReachesNoMember() {
		McpSession session = McpSession.open(new RawHttp(port), "all");
		TestUpstreams.SDK.clearSeen();

		HttpResponse<String> response = session.post("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"alpha_secret_admin\",\"arguments\":{\"_tenant\":\"other\"}}}");

		assertThat(response.statusCode()).as("refused, not accepted with 202").isEqualTo(400);
		assertThat(RawHttp.json(response.body()).at("/error/code").asInt()).isEqualTo(-32600);
		assertThat(TestUpstreams.SDK.seen()).as("no member got it").noneMatch(seen -> seen.body().contains("tools/call"));
	}

	@Test
	void callsGoToTheMemberTheirPrefixNamesWithoutThePrefix() {
		McpSyncClient client = client("/mcp/all");
		client.initialize();
		TestUpstreams.SDK.clearSeen();

		assertThat(text(client.callTool(call("alpha_echo", "to alpha")))).isEqualTo("to alpha");
		assertThat(text(client.callTool(call("beta_echo", "to beta")))).isEqualTo("to beta");
		assertThat(text(client.callTool(call("g.echo", "to gamma")))).isEqualTo("to gamma");

		assertThat(TestUpstreams.SDK.seen().stream()
			.filter(seen -> seen.body().contains("tools/call"))
			.map(seen -> seen.json().path("params").path("name").asText())).containsOnly("echo");
	}

	@Test
	void aMembersSamplingRequestIsAnsweredByTheClientAndReachesThatMember() {
		McpSyncClient client = client("/mcp/all");
		client.initialize();

		McpSchema.CallToolResult result = client.callTool(call("alpha_ask-model", "what is up?"));

		assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
		assertThat(text(result)).contains("hello from the client");
		assertThat(sampled).hasSize(1);
	}

	@Test
	void promptsAndResourcesReachTheMemberThatPublishedThem() {
		McpSyncClient client = client("/mcp/all");
		client.initialize();

		assertThat(client.listPrompts().prompts()).extracting(McpSchema.Prompt::name)
			.contains("alpha_greeting", "beta_greeting", "g.greeting");
		McpSchema.GetPromptResult prompt = client.getPrompt(new McpSchema.GetPromptRequest("g.greeting",
				Map.of("name", "Ada")));
		assertThat(prompt.messages()).isNotEmpty();

		assertThatThrownBy(() -> client.readResource(new McpSchema.ReadResourceRequest("memo://one")))
			.as("three members publish memo://one: an error naming them, never a guess")
			.isInstanceOf(McpError.class)
			.hasMessageContaining("alpha")
			.hasMessageContaining("beta");
	}

	@Test
	void unknownPrefixesNamesAndEmptyNamesAreClearErrors() {
		McpSyncClient client = client("/mcp/all");
		client.initialize();

		for (String name : List.of("nobody_echo", "echo", "alpha_", "alpha_nothing", "down_echo")) {
			assertThatThrownBy(() -> client.callTool(call(name, "x"))).as(name)
				.isInstanceOf(McpError.class);
		}
	}

	@Test
	void aForgedCursorAnUnknownAnswerIdAndAnUnknownSessionAreRefused() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "all");

		JsonNode forged = RawHttp.json(session.post(
				"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":\"abc.def\"}}").body());
		assertThat(forged.path("error").path("code").asInt()).isEqualTo(-32602);
		assertThat(forged.path("id").asInt()).isEqualTo(7);

		HttpResponse<String> answer = session.post("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay.v1.alpha.MQ.forged\",\"result\":{}}");
		assertThat(answer.statusCode()).isEqualTo(400);
		assertThat(RawHttp.json(answer.body()).path("error").path("data").path("reason").asText())
			.isEqualTo("unknown_request_id");

		HttpResponse<String> unknown = http.send(http.post("all", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
			.header("Mcp-Session-Id", "no-such-session"));
		assertThat(unknown.statusCode()).isEqualTo(404);
	}

	@Test
	void deleteEndsTheSessionAndEveryMemberSession() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "all");
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}").statusCode()).isEqualTo(200);

		HttpResponse<String> deleted = http.send(http.request("all").DELETE().header("Mcp-Session-Id", session.id()));

		assertThat(deleted.statusCode()).isEqualTo(200);
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
	}

	@Test
	void aGetIsAnswered405WhenNoMemberOffersAStreamAsAServerWithoutOneAnswers() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "streamless");

		HttpResponse<String> get = http.send(http.request("streamless").header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());

		assertThat(get.statusCode()).as("beta (stateless) answers GET 405: so does a virtual server of beta alone, "
				+ "not 200 with an empty stream the client reopens every second").isEqualTo(405);
		assertThat(get.headers().firstValue("Allow")).hasValueSatisfying(allow -> assertThat(allow).doesNotContain("GET"));
		assertThat(RawHttp.json(get.body()).at("/error/data/reason").asText()).isEqualTo("no_stream");
	}

	@Test
	void aGetIsServedWhileAMemberThatMayOfferAStreamIsNotJoinedYet() throws Exception {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "streamless-or-down");

		HttpResponse<java.io.InputStream> get = http.open(http.request("streamless-or-down")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.GET());

		try (java.io.InputStream body = get.body()) {
			assertThat(get.statusCode()).as("beta answers GET 405, but down is not joined: not known to offer none, "
					+ "and its stream joins this one when it joins; a client told 405 would never open one again")
				.isEqualTo(200);
			assertThat(get.headers().firstValue("Content-Type")).hasValueSatisfying(
					type -> assertThat(type).startsWith("text/event-stream"));
		}
	}

	@Test
	void loggingSetLevelAsksAndNamesAMemberThatIsNotJoined() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "all");

		List<JsonNode> answered = RawHttp.messagesOf(session.post(
				"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}"));

		assertThat(answered).as("down, not joined (it is down), is asked all the same, and named: %s", answered)
			.anyMatch(message -> "notifications/message".equals(message.path("method").asText())
					&& message.at("/params/level").asText().equals("warning")
					&& message.at("/params/data").asText().startsWith("Member 'down' is unavailable"));
		assertThat(answered.get(answered.size() - 1).has("result")).as("the others' result: %s", answered).isTrue();
	}

	/**
	 * The header rules of a relayed request hold on a virtual server's endpoint, by the same checks: a
	 * {@code notifications/cancelled} under {@code Mcp-Method: tools/call} (a request that would pass a gateway behind
	 * the relay under another name) is refused, not accepted (202), and so are conflicting lines of a single-valued
	 * header.
	 */
	@Test
	void theHeaderRulesOfARelayedRequestHoldOnAVirtualEndpoint() {
		RawHttp http = new RawHttp(port);
		McpSession session = McpSession.open(http, "all");

		HttpResponse<String> forged = http.send(session
			.request("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}")
			.header("Mcp-Method", "tools/call"));
		HttpResponse<String> conflicting = http.send(session.request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}")
			.header("MCP-Protocol-Version", "2025-03-26"));

		assertThat(forged.statusCode()).as(forged.body()).isEqualTo(400);
		assertThat(RawHttp.json(forged.body()).at("/error/data/reason").asText()).isEqualTo("header_mismatch");
		assertThat(conflicting.statusCode()).as(conflicting.body()).isEqualTo(400);
		assertThat(RawHttp.json(conflicting.body()).at("/error/data/reason").asText()).isEqualTo("conflicting_header");
	}

	@Test
	void aVirtualServerOfOneMemberWithoutPrefixListsAndCallsAsTheMemberItself() {
		McpSyncClient solo = client("/mcp/solo");
		McpSyncClient direct = client("/mcp/alpha");
		solo.initialize();
		direct.initialize();

		assertThat(solo.listTools()).isEqualTo(direct.listTools());
		assertThat(solo.listPrompts()).isEqualTo(direct.listPrompts());
		assertThat(solo.listResources()).isEqualTo(direct.listResources());
		assertThat(solo.callTool(call("echo", "same"))).isEqualTo(direct.callTool(call("echo", "same")));
	}

	@Test
	void aCallWithoutPrefixReachesTheMemberAsTheClientSpelledIt() {
		McpSession session = McpSession.open(new RawHttp(port), "solo");
		TestUpstreams.SDK.clearSeen();
		String spelled = "{ \"jsonrpc\": \"2.0\", \"id\": 41, \"method\": \"tools/call\",\n  \"params\": "
				+ "{\"name\": \"echo\", \"arguments\": {\"message\": \"caf\\u00e9 \\/ 1.50\"}} }";

		HttpResponse<String> answer = session.post(spelled);

		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		assertThat(RawHttp.messagesOf(answer).get(0).at("/result/content/0/text").asText()).isEqualTo("caf\u00e9 / 1.50");
		assertThat(TestUpstreams.SDK.seen()).filteredOn(seen -> seen.body().contains("tools/call"))
			.extracting(SdkMcpUpstream.Seen::body)
			.as("a virtual server of one member without prefix is transparent: the member gets the client's bytes")
			.containsExactly(spelled);
	}

	@Test
	void aRequestLargerThanItsMembersMaxBufferedBodyIsRefusedAsByTheMember() {
		McpSession session = McpSession.open(new RawHttp(port), "tight");
		String large = "x".repeat(2048);
		TestUpstreams.SDK.clearSeen();

		HttpResponse<String> refused = session.post("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"small_echo\",\"arguments\":{\"message\":\"" + large + "\"}}}");
		HttpResponse<String> taken = session.post("{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"alpha_echo\",\"arguments\":{\"message\":\"" + large + "\"}}}");

		assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText())
			.as("small's max-buffered-body (1KB) holds through the virtual server, whose own bound is alpha's")
			.isEqualTo("request_too_large");
		assertThat(RawHttp.json(refused.body()).get("id").isNull())
			.as("id-less, as small answers a body too large for it to read").isTrue();
		assertThat(TestUpstreams.SDK.seen()).as("small never got it")
			.noneMatch(seen -> seen.path().equals("/stateless") && seen.body().contains("tools/call"));
		assertThat(RawHttp.messagesOf(taken).get(0).at("/result/content/0/text").asText()).isEqualTo(large);
	}

	@Test
	void theDefaultEndpointServesTheComposition() {
		McpSyncClient client = client("/mcp");
		assertThat(client.initialize().serverInfo().name()).isEqualTo("all");
	}

	@Test
	void eachMembersPoliciesApplyAndInterceptorsSeeTheMemberAndTheVirtualServer() {
		McpSyncClient client = client("/mcp/all");
		client.initialize();
		SEEN.clear();

		List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
		assertThat(names).as("beta's deny list holds through the virtual server").contains("alpha_secret_admin")
			.doesNotContain("beta_secret_admin", "beta_secret_audit");
		assertThatThrownBy(() -> client.callTool(call("beta_secret_admin", "x"))).isInstanceOf(McpError.class);
		assertThat(text(client.callTool(call("alpha_secret_audit", "once")))).isEqualTo("once");
		assertThatThrownBy(() -> client.callTool(call("alpha_secret_audit", "twice")))
			.as("alpha's rate limit holds through the virtual server: 429, as from alpha itself")
			.hasMessageContaining("429")
			.hasMessageContaining("alpha-audits");
		assertThat(SEEN).as("tools/call interceptors ran per member, with the virtual server in the context")
			.contains("alpha/all/secret_audit");
	}

	@Test
	void aVirtualRequestCountsOnceAsARequestAndItsMessageToAMemberUnderTheMembersOwnMeter() {
		McpSession session = McpSession.open(new RawHttp(port), "solo");
		double requestsBefore = count(RelayMeters.REQUESTS);
		double memberBefore = count(RelayMeters.VIRTUAL_MEMBER_REQUESTS);

		assertThat(session.post(RawHttp.toolsCall(9, "echo")).statusCode()).isEqualTo(200);

		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(count(RelayMeters.VIRTUAL_MEMBER_REQUESTS) - memberBefore)
				.as("the message to alpha, under the members' own meter").isEqualTo(1);
			assertThat(count(RelayMeters.REQUESTS) - requestsBefore)
				.as("mcp_relay_requests_total counts the client's one request once, under the virtual server")
				.isEqualTo(1);
		});
		assertThat(registry.find(RelayMeters.VIRTUAL_MEMBER_REQUESTS).tag(RelayMeters.SERVER, "alpha")
			.tag(RelayMeters.VIRTUAL_SERVER, "solo").tag(RelayMeters.RPC_METHOD, "tools/call").counter())
			.as("the member's meter carries the member and the virtual server").isNotNull();
		assertThat(registry.find(RelayMeters.REQUESTS).tag(RelayMeters.SERVER, "solo")
			.tag(RelayMeters.VIRTUAL_SERVER, "solo").tag(RelayMeters.RPC_METHOD, "tools/call").counter()).isNotNull();
	}

	/** The tools/call count of {@code meter}, over every series. */
	private double count(String meter) {
		return registry.find(meter).tag(RelayMeters.RPC_METHOD, "tools/call").counters().stream()
			.mapToDouble(io.micrometer.core.instrument.Counter::count)
			.sum();
	}

	/** Every tools/call an interceptor saw, as server/virtual server/tool. */
	static final List<String> SEEN = new CopyOnWriteArrayList<>();

	@TestConfiguration
	static class RecordingInterceptor {

		@Bean
		ToolsCallRequestInterceptor recordingToolsCall() {
			return new ToolsCallRequestInterceptor() {

				@Override
				public String name() {
					return "recording";
				}

				@Override
				public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
					SEEN.add(call.context().server() + "/" + call.context().virtualServer() + "/" + call.toolName());
					return Outcome.proceed();
				}

			};
		}

	}

	@Test
	void aNameTwoMembersPublishStaysWithTheEarlierMemberAndTheClashIsCounted() {
		McpSyncClient client = client("/mcp/flat");
		client.initialize();
		TestUpstreams.SDK.clearSeen();

		List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
		assertThat(names).contains("echo", "ask-model").doesNotHaveDuplicates();
		assertThat(text(client.callTool(call("echo", "to the first")))).isEqualTo("to the first");

		assertThat(TestUpstreams.SDK.seen()).as("gamma, first in members, keeps echo: alpha is not asked")
			.noneMatch(seen -> seen.body().contains("tools/call"));
		assertThat(registry.find(RelayMeters.VIRTUAL_NAME_CLASHES).tag(RelayMeters.VIRTUAL_SERVER, "flat")
			.tag(RelayMeters.SERVER, "alpha").counter()).isNotNull()
			.satisfies(counter -> assertThat(counter.count()).isPositive());
	}

	@Test
	void completionsSubscriptionsAndCancellationsReachTheRightMembers() {
		RawHttp http = new RawHttp(port);
		McpSession all = McpSession.open(http, "all");
		McpSession solo = McpSession.open(http, "solo");
		TestUpstreams.SDK.clearSeen();
		SECOND.clearSeen();

		all.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":"
				+ "\"ref/prompt\",\"name\":\"g.greeting\"},\"argument\":{\"name\":\"name\",\"value\":\"A\"}}}");
		assertThat(SECOND.seen()).as("gamma's prompt, by its own name").anySatisfy(seen -> {
			assertThat(seen.json().path("method").asText()).isEqualTo("completion/complete");
			assertThat(seen.json().at("/params/ref/name").asText()).isEqualTo("greeting");
		});
		assertThat(TestUpstreams.SDK.seen()).noneMatch(seen -> seen.body().contains("completion/complete"));

		solo.post("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"memo://one\"}}");
		assertThat(TestUpstreams.SDK.seen()).anyMatch(seen -> seen.body().contains("resources/subscribe"));

		assertThat(all.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}")
			.statusCode()).isEqualTo(202);
		assertThat(TestUpstreams.SDK.seen()).filteredOn(seen -> seen.body().contains("notifications/cancelled"))
			.extracting(SdkMcpUpstream.Seen::path).as("to every joined member").contains("/mcp", "/stateless");
		assertThat(SECOND.seen()).anyMatch(seen -> seen.body().contains("notifications/cancelled"));
	}

	@Test
	void toolSearchFindsToolsAcrossMembersAndExposesThemInTheSession() throws Exception {
		McpSession session = McpSession.open(new RawHttp(port), "search");
		assertThat(listedTools(session)).containsExactly("search_available_tools", "beta_whoami");

		int logMark = CapturedLogs.all().size();
		JsonNode early = RawHttp.json(session.post(RawHttp.toolsCall("not-exposed-2", "beta_echo")).body());
		assertThat(early.at("/error/code").asInt()).isEqualTo(-32602);
		assertThat(early.at("/error/message").asText()).contains("search_available_tools");
		assertThat(NonReadingClient.awaitAccessLine(logMark, "server=search ", "id=not-exposed-2"))
			.as("cold review F: client_error here, rejected on a server")
			.contains("outcome=rejected")
			.contains("interceptor=tool-search")
			.contains("reason=not_exposed");

		List<JsonNode> searched = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"echo\","
				+ "\"limit\":4}}}"));
		assertThat(searched.get(0).path("method").asText()).isEqualTo("notifications/tools/list_changed");
		List<String> found = searched.get(1).at("/result/structuredContent/tools").findValuesAsText("name");
		assertThat(found).as("hits from both members, prefixed").contains("alpha_echo", "beta_echo");
		assertThat(listedTools(session)).contains("search_available_tools", "beta_whoami", "alpha_echo", "beta_echo");

		List<JsonNode> called = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"beta_echo\",\"arguments\":{\"message\":\"found\"}}}"));
		assertThat(called.get(called.size() - 1).at("/result/content/0/text").asText()).isEqualTo("found");
	}

	private static List<String> listedTools(McpSession session) {
		List<JsonNode> listed = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"));
		return listed.get(listed.size() - 1).at("/result/tools").findValuesAsText("name").stream()
			.filter(name -> !name.isEmpty()).distinct().toList();
	}

	private McpSyncClient client(String endpoint) {
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
			.builder("http://127.0.0.1:" + port)
			.endpoint(endpoint)
			.build();
		McpSyncClient client = McpClient.sync(transport)
			.requestTimeout(Duration.ofSeconds(20))
			.capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
			.sampling(request -> {
				sampled.add(request);
				return McpSchema.CreateMessageResult.builder()
					.role(McpSchema.Role.ASSISTANT)
					.content(new McpSchema.TextContent("hello from the client"))
					.model("client-model")
					.build();
			})
			.loggingConsumer(logged::add)
			.build();
		clients.add(client);
		return client;
	}

	private static McpSchema.CallToolRequest call(String tool, String message) {
		return McpSchema.CallToolRequest.builder().name(tool).arguments(Map.of("message", message)).build();
	}

	private static String text(McpSchema.CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

}
