package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code virtual-servers} edited in the mounted file of a running relay in {@code api-key} mode, in front of a real MCP
 * server (the MCP Java SDK's; its {@code progress} tool holds a call's stream open until the test lets it go), with a
 * session of each virtual server holding its merged GET stream and a call streaming through a member open while the
 * file changes: a virtual server added serves from the next request; one removed answers 404 {@code unknown_server},
 * its GET stream ends cleanly and its call is answered {@code server_removed} (both counted under it), and its member
 * session gets its DELETE; one changed ends its sessions alike with {@code session_ended}, a request on such a session
 * is answered 404 {@code session_ended} and a new one has the new members; a virtual server left as it was keeps its
 * sessions, GET stream and calls; an invalid edit is refused whole with every stream running on; a revoked key's call
 * through a member ends with {@code access_withdrawn}, counted, while another key's runs to its answer; a server
 * joining or leaving a virtual server of every server ({@code ["*"]}) leaves its sessions running, its open merged GET
 * told each list the server offers changed, and a member that left never asked again.
 */
class LiveVirtualServersReloadTest {

	private static final String ALICE = "alice-key-for-virtual-reloads";

	private static final String BOB = "bob-key-for-virtual-reloads";

	private static final String HUB_AND_OTHER = "    hub:\n      members: [alpha]\n    other:\n      members: [beta]\n";

	static SdkMcpUpstream upstream;

	/** A second real server, {@code gamma}'s, named only by the tests that add it: its requests are its own. */
	static SdkMcpUpstream gamma;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(HUB_AND_OTHER, true))
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> gamma = new SdkMcpUpstream());

	/** The streams a test opened, closed after it whatever it left open (a test that failed midway). */
	static final List<OpenSse> opened = new java.util.concurrent.CopyOnWriteArrayList<>();

	@AfterEach
	void closeWhatWasOpened() throws Exception {
		upstream.releaseProgress();
		for (OpenSse stream : opened) {
			stream.close();
		}
		opened.clear();
	}

	@Test
	void aVirtualServerAddedServesFromTheNextRequest() throws Exception {
		assertThat(initializeStatus(caller(ALICE), "both")).isEqualTo(404);

		live.reload(config(HUB_AND_OTHER + "    both:\n      members: [alpha, beta]\n", true), ReloadOutcome.APPLIED);

		assertThat(tools(McpSession.open(caller(ALICE), "both"))).contains("alpha_echo", "beta_echo");
	}

	@Test
	void aRemovedVirtualServerAnswers404ItsStreamsEndAndItsMemberSessionEndsWhileAnotherRunsOn() throws Exception {
		upstream.resetProgressGate();
		Held hub = Held.open(caller(ALICE), "hub", "alpha", 21);
		Held other = Held.open(caller(ALICE), "other", "beta", 22);
		double hubEnded = streamsEnded("hub", "server_removed");
		double otherEnded = streamsEnded("other");
		upstream.clearSeen();

		live.reload(config("    other:\n      members: [beta]\n", true), ReloadOutcome.APPLIED);

		assertEndedWith(hub.call, 21, "server_removed");
		hub.get.awaitEnd();
		assertThat(streamsEnded("hub", "server_removed")).as("its GET stream and its call, counted")
			.isEqualTo(hubEnded + 2);
		Awaitility.await("the member session's DELETE").atMost(Duration.ofSeconds(20))
			.until(() -> deletes().contains(hub.memberSession));
		HttpResponse<String> next = hub.session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
		assertThat(next.statusCode()).isEqualTo(404);
		assertThat(RawHttp.json(next.body()).at("/error/data/reason").asText()).isEqualTo("unknown_server");
		assertUntouched(other, 22, otherEnded);
	}

	@Test
	void aChangedVirtualServerEndsItsSessionsWhoseNextRequestIs404SessionEndedAndANewSessionHasTheNewMembers()
			throws Exception {
		upstream.resetProgressGate();
		Held hub = Held.open(caller(ALICE), "hub", "alpha", 31);
		Held other = Held.open(caller(ALICE), "other", "beta", 32);
		double hubEnded = streamsEnded("hub", "session_ended");
		double otherEnded = streamsEnded("other");
		upstream.clearSeen();

		live.reload(config("    hub:\n      members: [alpha, beta]\n    other:\n      members: [beta]\n", true),
				ReloadOutcome.APPLIED);

		assertEndedWith(hub.call, 31, "session_ended");
		hub.get.awaitEnd();
		assertThat(streamsEnded("hub", "session_ended")).as("its GET stream and its call, counted")
			.isEqualTo(hubEnded + 2);
		Awaitility.await("the member session's DELETE").atMost(Duration.ofSeconds(20))
			.until(() -> deletes().contains(hub.memberSession));
		HttpResponse<String> next = hub.session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
		assertThat(next.statusCode()).as("a request on the ended session").isEqualTo(404);
		assertThat(RawHttp.json(next.body()).at("/error/data/reason").asText()).isEqualTo("session_ended");
		assertThat(tools(McpSession.open(caller(ALICE), "hub"))).as("a new session, on the new members")
			.contains("alpha_echo", "beta_echo");
		assertUntouched(other, 32, otherEnded);
	}

	@Test
	void anInvalidVirtualServerEditIsRefusedWholeAndEveryStreamRunsOn() throws Exception {
		upstream.resetProgressGate();
		Held hub = Held.open(caller(ALICE), "hub", "alpha", 41);
		String running = live.relay().checksum();
		double hubEnded = streamsEnded("hub");

		live.reload(config("    hub:\n      members: [alpha, nowhere]\n    other:\n      members: [beta]\n", true),
				ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).isEqualTo(running);
		assertUntouched(hub, 41, hubEnded);
		assertThat(tools(McpSession.open(caller(ALICE), "hub"))).as("hub serves as it was").contains("alpha_echo")
			.noneMatch(name -> name.startsWith("beta_"));
	}

	@Test
	void aRevokedKeysCallThroughAMemberEndsWithAccessWithdrawnWhileAnotherKeysRunsToItsAnswer() throws Exception {
		upstream.resetProgressGate();
		Held bob = Held.open(caller(BOB), "hub", "alpha", 51);
		Held alice = Held.open(caller(ALICE), "hub", "alpha", 52);
		double hubEnded = streamsEnded("hub");
		double withdrawn = streamsEnded("hub", "access_withdrawn");

		live.reload(config(HUB_AND_OTHER, false), ReloadOutcome.APPLIED);

		assertEndedWith(bob.call, 51, "access_withdrawn");
		bob.get.awaitEnd();
		assertThat(streamsEnded("hub", "access_withdrawn")).as("bob's call and GET stream, counted")
			.isEqualTo(withdrawn + 2);
		assertThat(bob.session.post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}").statusCode())
			.as("the revoked key's next request").isEqualTo(401);
		assertUntouched(alice, 52, hubEnded + 2);
	}

	@Test
	void aMemberWhoseServerAReloadRemovedIsNeverCalledAgainByAnOpenMergedGetWhoseOtherMembersRunOn() throws Exception {
		String withGamma = config(HUB_AND_OTHER + "    all:\n      members: [\"*\"]\n", true).replace(
				"  virtual-servers:\n", "    gamma:\n      url: " + gamma.url("/mcp") + "\n  virtual-servers:\n");
		live.reload(withGamma, ReloadOutcome.APPLIED);
		McpSession session = McpSession.open(caller(ALICE), "all");
		OpenSse get = mergedGet(session, "all");
		Awaitility.await("gamma's member stream open").atMost(Duration.ofSeconds(20))
			.until(() -> gets(gamma) == 1);
		// the SDK's server sends its stream's headers with its first event: one makes gamma's stream open
		gamma.notifyToolsListChanged();
		assertThat(get.next().path("method").asText()).isEqualTo("notifications/tools/list_changed");
		double gammaEnded = streamsEnded("gamma", "server_removed");

		// gamma leaves: "all" keeps its version (members ["*"]), its session and GET run on through alpha and beta
		live.reload(withGamma.replace("    gamma:\n      url: " + gamma.url("/mcp") + "\n", ""), ReloadOutcome.APPLIED);

		Awaitility.await("gamma's member stream ended").atMost(Duration.ofSeconds(20))
			.until(() -> streamsEnded("gamma", "server_removed") == gammaEnded + 1);
		// a member stream that ended is opened again within StreamBackoff.FIRST (and a quarter): watch several times that
		Awaitility.await("gamma is never called again").pollDelay(Duration.ofMillis(100))
			.during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
			.until(() -> gets(gamma) == 1 && streamsEnded("gamma", "server_removed") == gammaEnded + 1);
		assertThat(get.ended()).as("the merged GET runs on").isFalse();
		upstream.notifyToolsListChanged();
		assertThat(get.next().path("method").asText()).as("its other members' notifications still come")
			.isEqualTo("notifications/tools/list_changed");
	}

	@Test
	void aServerJoiningAVirtualServerOfEveryServerIsToldToItsOpenMergedGetAsAChangeOfEachListItOffers()
			throws Exception {
		String all = config(HUB_AND_OTHER + "    all:\n      members: [\"*\"]\n", true);
		live.reload(all, ReloadOutcome.APPLIED);
		McpSession session = McpSession.open(caller(ALICE), "all");
		OpenSse get = mergedGet(session, "all");
		assertThat(tools(session)).noneMatch(name -> name.startsWith("gamma_"));

		// gamma joins "all" (members ["*"]): no change of the virtual server's version, its session and GET run on
		live.reload(all.replace("  virtual-servers:\n",
				"    gamma:\n      url: " + gamma.url("/mcp") + "\n  virtual-servers:\n"), ReloadOutcome.APPLIED);

		JsonNode told = get.next();
		assertThat(told).as("the relay tells the open GET").isNotNull();
		assertThat(told.path("method").asText()).isEqualTo("notifications/tools/list_changed");
		// the SDK's server offers prompts and resources too, which the session announced
		assertThat(get.next().path("method").asText()).isEqualTo("notifications/prompts/list_changed");
		assertThat(get.next().path("method").asText()).isEqualTo("notifications/resources/list_changed");
		assertThat(tools(session)).as("listed again, the session has the new member's tools").contains("gamma_echo");
	}

	/** The merged GET stream of {@code session} on virtual server {@code server}, closed after the test. */
	private static OpenSse mergedGet(McpSession session, String server) throws Exception {
		OpenSse get = new OpenSse(caller(ALICE).open(caller(ALICE).request(server)
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
		opened.add(get);
		return get;
	}

	/** The GETs {@code server} was sent. */
	private static long gets(SdkMcpUpstream server) {
		return server.seen().stream().filter(seen -> seen.method().equals("GET")).count();
	}

	/**
	 * What a reload left alone runs on: its call to its answer once the upstream lets it go, its GET stream still
	 * carrying what the member sends (a list change), nothing of it counted as ended, its session serving.
	 */
	private static void assertUntouched(Held held, int id, double endedBefore) throws Exception {
		assertThat(held.get.ended()).as("its GET stream is open").isFalse();
		upstream.notifyToolsListChanged();
		assertThat(held.get.next().path("method").asText()).as("its GET stream carries the member's notification")
			.isEqualTo("notifications/tools/list_changed");
		upstream.releaseProgress();
		List<JsonNode> answered = held.call.awaitEnd();
		assertThat(answered).as("the call runs to its answer: %s", answered).last().satisfies(answer -> {
			assertThat(answer.path("id").asInt()).isEqualTo(id);
			assertThat(answer.has("result")).isTrue();
		});
		assertThat(streamsEnded(held.server)).isEqualTo(endedBefore);
		assertThat(tools(held.session)).as("its session serves").isNotEmpty();
		held.get.close();
	}

	private static void assertEndedWith(OpenSse call, int id, String reason) throws Exception {
		List<JsonNode> events = call.awaitEnd();
		assertThat(events).as("the call is answered with an error and ends: %s", events).last().satisfies(answer -> {
			assertThat(answer.path("id").asInt()).isEqualTo(id);
			assertThat(answer.at("/error/data/reason").asText()).isEqualTo(reason);
		});
	}

	/**
	 * A session of virtual server {@code server}, its merged GET stream open, and a {@code progress} call through
	 * {@code member} streaming its answer (its first progress event read), held open by the upstream.
	 */
	private record Held(String server, McpSession session, String memberSession, OpenSse get, OpenSse call) {

		static Held open(RawHttp http, String server, String member, int id) throws Exception {
			int seenBefore = upstream.seen().size();
			McpSession session = McpSession.open(http, server);
			// the member had the client's notifications/initialized before the client's was answered
			List<SdkMcpUpstream.Seen> recorded = List.copyOf(upstream.seen());
			String memberSession = recorded.subList(seenBefore, recorded.size()).stream()
				.filter(seen -> seen.body().contains("notifications/initialized"))
				.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
				.findFirst()
				.orElseThrow();
			OpenSse get = new OpenSse(http.open(http.request(server)
				.header("Accept", "text/event-stream")
				.header("Mcp-Session-Id", session.id())
				.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
				.GET()));
			OpenSse call = new OpenSse(http.open(session.request("{\"jsonrpc\":\"2.0\",\"id\":" + id
					+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + member + "_progress\",\"arguments\":{},"
					+ "\"_meta\":{\"progressToken\":\"p-" + id + "\"}}}")));
			opened.add(get);
			opened.add(call);
			assertThat(call.next().path("method").asText()).as("the call streams").isEqualTo("notifications/progress");
			return new Held(server, session, memberSession, get, call);
		}

	}

	/** {@code mcp_relay_streams_ended_total} of {@code server}, every reason together. */
	private static double streamsEnded(String server) {
		return live.relay().context().getBean(MeterRegistry.class).find("mcp.relay.streams.ended").tag("server", server)
			.counters().stream().mapToDouble(Counter::count).sum();
	}

	/** {@code mcp_relay_streams_ended_total} of {@code server} for {@code reason}. */
	private static double streamsEnded(String server, String reason) {
		return live.relay().context().getBean(MeterRegistry.class).find("mcp.relay.streams.ended").tag("server", server)
			.tag("reason", reason).counters().stream().mapToDouble(Counter::count).sum();
	}

	/** The member session ids the upstream was sent a DELETE for. */
	private static List<String> deletes() {
		List<String> ids = new ArrayList<>();
		upstream.seen().stream()
			.filter(seen -> seen.method().equals("DELETE"))
			.forEach(seen -> ids.add(seen.headers().getFirst("Mcp-Session-Id")));
		return ids;
	}

	private static List<String> tools(McpSession session) {
		HttpResponse<String> listed = session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
		assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
		List<String> names = new ArrayList<>();
		for (JsonNode message : RawHttp.messagesOf(listed)) {
			message.at("/result/tools").forEach(tool -> names.add(tool.path("name").asText()));
		}
		return names;
	}

	private static int initializeStatus(RawHttp http, String server) {
		return http.send(http.post(server, McpSession.initialize(1))).statusCode();
	}

	private static RawHttp caller(String key) {
		return live.http("X-Api-Key", key);
	}

	/** alpha and beta (one upstream), alice's key opening every server and bob's ({@code withBob}), and the virtual servers. */
	static String config(String virtualServers, boolean withBob) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ key("alice", ALICE) + (withBob ? key("bob", BOB) : "") + "  servers:\n    alpha:\n      url: "
				+ upstream.url("/mcp") + "\n    beta:\n      url: " + upstream.url("/mcp") + "\n  virtual-servers:\n"
				+ virtualServers;
	}

	private static String key(String client, String key) {
		return "      - client: " + client + "\n        key-sha256: \"" + Sha256.hex(key) + "\"\n        servers: [\"*\"]\n";
	}

}
