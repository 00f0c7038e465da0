package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two relays over one real Redis, each on its mounted file, in front of real MCP servers (the MCP Java SDK's, as
 * members {@code alpha} and {@code beta}; {@code progress} holds a call's stream open until the test lets it go),
 * while they disagree on a virtual server's members (review 44f, N3): a session opened on the replica ahead, under the
 * newer settings, whose member {@code alpha} the replica behind joined again (alpha had forgotten it), holds its merged
 * GET stream and a call streaming through alpha on the replica behind, which serves it on its older settings; when
 * that replica applies the change too, the session's GET stream runs on, told that its lists may have changed (so that
 * its client lists them again, on the new settings), its call runs to its answer, nothing of them counted as ended,
 * and the session holds on both replicas, and its GET stream, opened again there, reads beta too (which the older
 * settings did not have); the same replica's own session of the older settings ends as a changed virtual server's
 * sessions do, its GET stream and call with {@code session_ended}, its next request 404. (A session the replica
 * ahead ended meanwhile: {@link SessionEndedElsewhereReloadTest}.) The helpers are shared with that class.
 */
class CatchingUpReplicaReloadTest {

	private static final String OLDER = "    hub:\n      members: [alpha]\n";

	private static final String NEWER = "    hub:\n      members: [alpha, beta]\n";

	@Test
	void theReplicaCatchingUpKeepsTheStreamsOfASessionOfTheNewerSettingsAndEndsThoseOfItsOlderOnes(@TempDir Path root)
			throws Exception {
		List<OpenSse> opened = new ArrayList<>();
		try (SdkMcpUpstream upstream = new SdkMcpUpstream(); SdkMcpUpstream beta = new SdkMcpUpstream();
				RedisServerProcess redis = RedisServerProcess.start()) {
			String[] shared = redis.relayArguments().toArray(String[]::new);
			try (MountedRelay ahead = MountedRelay.start(Files.createDirectory(root.resolve("ahead")),
					config(upstream, beta, OLDER), shared);
					MountedRelay behind = MountedRelay.start(Files.createDirectory(root.resolve("behind")),
							config(upstream, beta, OLDER), shared)) {
				ahead.awaitOutcome(() -> ahead.swap(config(upstream, beta, NEWER)), ReloadOutcome.APPLIED);
				String newer = McpSession.open(ahead.http(), "hub").id();
				String newerAlphaSession = lastJoined(upstream);
				String older = McpSession.open(behind.http(), "hub").id();
				// alpha forgets the newer session's member session (it restarted): the replica behind joins it again,
				// so it keeps that session among those whose members it joined
				forget(upstream, newerAlphaSession);
				HttpResponse<String> rejoined = behind.http().send(inSession(behind, newer, TOOLS_LIST));
				assertThat(rejoined.statusCode()).as(rejoined.body()).isEqualTo(200);
				assertThat(lastJoined(upstream)).as("alpha joined again").isNotEqualTo(newerAlphaSession);
				OpenSse newerGet = track(opened, get(behind, newer));
				OpenSse olderGet = track(opened, get(behind, older));
				// the upstream holds a progress call 10 s at most: the calls open last, right before the reload
				OpenSse newerCall = track(opened, progressCall(behind, newer, 11, "alpha_progress"));
				OpenSse olderCall = track(opened, progressCall(behind, older, 12, "alpha_progress"));
				double endedBefore = streamsEnded(behind);

				behind.awaitOutcome(() -> behind.swap(config(upstream, beta, NEWER)), ReloadOutcome.APPLIED);

				List<JsonNode> olderEnd = olderCall.awaitEnd();
				assertThat(olderEnd).as("the older session's call: %s", olderEnd).last().satisfies(answer -> {
					assertThat(answer.path("id").asInt()).isEqualTo(12);
					assertThat(answer.at("/error/data/reason").asText()).isEqualTo("session_ended");
				});
				olderGet.awaitEnd();
				assertThat(List.of(newerGet.next(), newerGet.next(), newerGet.next()))
					.as("the newer session's GET stream is told each list it announced may have changed")
					.extracting(told -> told.path("method").asText())
					.containsExactly("notifications/tools/list_changed", "notifications/prompts/list_changed",
							"notifications/resources/list_changed");
				upstream.releaseProgress();
				List<JsonNode> answered = newerCall.awaitEnd();
				assertThat(answered).as("the newer session's call runs to its answer: %s", answered).last()
					.satisfies(answer -> {
						assertThat(answer.path("id").asInt()).isEqualTo(11);
						assertThat(answer.has("result")).as("its result, not an error").isTrue();
						assertThat(answer.at("/result/isError").asBoolean()).as("released, not timed out").isFalse();
					});
				assertThat(newerGet.ended()).as("the newer session's GET stream is open").isFalse();
				upstream.notifyToolsListChanged();
				assertThat(newerGet.next().path("method").asText()).as("and still carries its member's notifications")
					.isEqualTo("notifications/tools/list_changed");
				assertThat(streamsEnded(behind)).as("the older session's GET stream and call, counted; none of the "
						+ "newer's").isEqualTo(endedBefore + 2);

				HttpResponse<String> listed = behind.http().send(inSession(behind, newer, TOOLS_LIST));
				assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
				assertThat(listed.body()).as("listed again, on the new members").contains("alpha_echo", "beta_echo");
				HttpResponse<String> onAhead = ahead.http().send(inSession(ahead, newer, TOOLS_LIST));
				assertThat(onAhead.statusCode()).as("the newer session holds on the replica ahead too: %s",
						onAhead.body()).isEqualTo(200);
				HttpResponse<String> olderNext = behind.http().send(inSession(behind, older, TOOLS_LIST));
				assertThat(olderNext.statusCode()).as(olderNext.body()).isEqualTo(404);
				assertThat(RawHttp.json(olderNext.body()).at("/error/data/reason").asText()).isEqualTo("session_ended");

				// its kept GET stream reads alpha only (opened on the older settings); opened again, it reads beta too
				newerGet.close();
				OpenSse reopened = track(opened, get(behind, newer));
				beta.notifyToolsListChanged();
				assertThat(reopened.next().path("method").asText())
					.as("the GET stream opened again reads beta, which the new settings added (review 44j F4)")
					.isEqualTo("notifications/tools/list_changed");
			}
			finally {
				upstream.releaseProgress();
				for (OpenSse stream : opened) {
					stream.close();
				}
			}
		}
	}

	/**
	 * The other way round (review 44j F1): the change takes {@code beta} out of the virtual server. A session opened
	 * on the replica ahead, without beta, that the replica behind served on its older settings (it joined beta there,
	 * late), holds its merged GET stream and a call streaming through beta on the replica behind; when that replica
	 * applies the change, the session does not carry on in a version without beta: its call ends with
	 * {@code session_ended}, its GET stream ends, so nothing of beta's reaches it any more, and its next request 404s.
	 */
	@Test
	void theReplicaCatchingUpEndsTheStreamsOfASessionOfTheNewerSettingsWhenTheyDropAMember(@TempDir Path root)
			throws Exception {
		List<OpenSse> opened = new ArrayList<>();
		try (SdkMcpUpstream upstream = new SdkMcpUpstream(); SdkMcpUpstream beta = new SdkMcpUpstream();
				RedisServerProcess redis = RedisServerProcess.start()) {
			String[] shared = redis.relayArguments().toArray(String[]::new);
			try (MountedRelay ahead = MountedRelay.start(Files.createDirectory(root.resolve("ahead")),
					config(upstream, beta, NEWER), shared);
					MountedRelay behind = MountedRelay.start(Files.createDirectory(root.resolve("behind")),
							config(upstream, beta, NEWER), shared)) {
				ahead.awaitOutcome(() -> ahead.swap(config(upstream, beta, OLDER)), ReloadOutcome.APPLIED);
				String newer = McpSession.open(ahead.http(), "hub").id();
				HttpResponse<String> listed = behind.http().send(inSession(behind, newer, TOOLS_LIST));
				assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
				assertThat(listed.body()).as("served on the older settings behind").contains("beta_echo");
				OpenSse newerGet = track(opened, get(behind, newer));
				beta.notifyToolsListChanged();
				assertThat(newerGet.next().path("method").asText()).as("beta reaches the GET stream before the reload")
					.isEqualTo("notifications/tools/list_changed");
				// the upstream holds a progress call 10 s at most: it opens last, right before the reload
				OpenSse betaCall = track(opened, progressCall(behind, newer, 13, "beta_progress"));

				behind.awaitOutcome(() -> behind.swap(config(upstream, beta, OLDER)), ReloadOutcome.APPLIED);

				List<JsonNode> betaEnd = betaCall.awaitEnd();
				assertThat(betaEnd).as("the call through beta: %s", betaEnd).last().satisfies(answer -> {
					assertThat(answer.path("id").asInt()).isEqualTo(13);
					assertThat(answer.at("/error/data/reason").asText()).isEqualTo("session_ended");
				});
				newerGet.awaitEnd();
				assertThat(newerGet.ended()).as("the GET stream ended: beta reaches the session no more").isTrue();
				HttpResponse<String> next = behind.http().send(inSession(behind, newer, TOOLS_LIST));
				assertThat(next.statusCode()).as(next.body()).isEqualTo(404);
			}
			finally {
				beta.releaseProgress();
				for (OpenSse stream : opened) {
					stream.close();
				}
			}
		}
	}

	/**
	 * A session of {@code hub} opened on the replica {@code ahead} (which runs settings B), served by {@code behind}:
	 * alpha forgot the member session {@code ahead} joined, so {@code behind} joined it again ({@code joinedBehind}),
	 * and the session's merged GET stream is open on {@code behind}, reading alpha.
	 */
	record ServedBehind(String id, String joinedBehind, OpenSse get) {
	}

	/** Opens {@link ServedBehind}; its GET stream goes in {@code opened}, to be closed. */
	static ServedBehind servedBehind(MountedRelay ahead, MountedRelay behind, SdkMcpUpstream alpha,
			List<OpenSse> opened) throws Exception {
		String session = McpSession.open(ahead.http(), "hub").id();
		// alpha forgets the member session the replica ahead joined, and the replica behind joins it again: the
		// session's streams behind run in a member session the replica ahead's end of the session does not DELETE
		forget(alpha, lastJoined(alpha));
		HttpResponse<String> listed = behind.http().send(inSession(behind, session, TOOLS_LIST));
		assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
		String joinedBehind = lastJoined(alpha);
		OpenSse get = track(opened, get(behind, session));
		alpha.notifyToolsListChanged();
		assertThat(get.next().path("method").asText()).as("alpha reaches the GET stream behind")
			.isEqualTo("notifications/tools/list_changed");
		return new ServedBehind(session, joinedBehind, get);
	}

	/** The member session of the last session that joined {@code upstream}. */
	static String lastJoined(SdkMcpUpstream upstream) {
		return upstream.seen().stream()
			.filter(seen -> seen.body().contains("notifications/initialized"))
			.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
			.reduce((first, last) -> last)
			.orElseThrow();
	}

	/** Ends member session {@code sessionId} at {@code upstream} itself, as its restart would. */
	static void forget(SdkMcpUpstream upstream, String sessionId) throws Exception {
		HttpResponse<Void> deleted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(upstream.url(
				"/mcp"))).header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.DELETE().build(), HttpResponse.BodyHandlers.discarding());
		assertThat(deleted.statusCode()).as("the member session's DELETE at the upstream").isEqualTo(200);
	}

	static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

	static OpenSse track(List<OpenSse> opened, OpenSse stream) {
		opened.add(stream);
		return stream;
	}

	/** Session {@code sessionId}'s merged GET stream on {@code relay}. */
	static OpenSse get(MountedRelay relay, String sessionId) {
		return new OpenSse(relay.http().open(inSession(relay, sessionId, null)));
	}

	/** A call of {@code tool} (a member's {@code progress}) in session {@code sessionId} on {@code relay}, streaming. */
	static OpenSse progressCall(MountedRelay relay, String sessionId, int id, String tool) throws Exception {
		OpenSse call = new OpenSse(relay.http().open(inSession(relay, sessionId,
				"{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\","
						+ "\"arguments\":{},\"_meta\":{\"progressToken\":\"p-" + id + "\"}}}")));
		assertThat(call.next().path("method").asText()).as("the call streams").isEqualTo("notifications/progress");
		return call;
	}

	/** A request in session {@code sessionId} of {@code hub} on {@code relay}: a POST of {@code body}, else a GET. */
	static HttpRequest.Builder inSession(MountedRelay relay, String sessionId, String body) {
		HttpRequest.Builder request = body == null
				? relay.http().request("hub").header("Accept", "text/event-stream").GET()
				: relay.http().post("hub", body);
		return request.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION);
	}

	/** {@code mcp_relay_streams_ended_total} of {@code hub} on {@code relay}, every reason together. */
	private static double streamsEnded(MountedRelay relay) {
		return relay.context().getBean(MeterRegistry.class).find("mcp.relay.streams.ended").tag("server", "hub")
			.counters().stream().mapToDouble(Counter::count).sum();
	}

	private static String config(SdkMcpUpstream upstream, SdkMcpUpstream beta, String virtualServers) {
		return config(upstream, beta, null, virtualServers);
	}

	/** Members alpha, beta and, unless {@code null}, gamma; the virtual servers {@code virtualServers}. */
	static String config(SdkMcpUpstream upstream, SdkMcpUpstream beta, SdkMcpUpstream gamma,
			String virtualServers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  sessions:\n"
				+ "    store: redis\n  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n    beta:\n      url: "
				+ beta.url("/mcp") + (gamma == null ? "" : "\n    gamma:\n      url: " + gamma.url("/mcp"))
				+ "\n  virtual-servers:\n" + virtualServers;
	}

}
