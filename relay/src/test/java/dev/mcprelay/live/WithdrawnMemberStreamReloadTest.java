package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A merged GET of a key a reload narrowed off one member of a virtual server (review 44i, D): the reload ends the
 * client's GET, and the GET the client opens again carries the members the key may still use and nothing of the one it
 * lost: that member's stream, which the session held, ends, and the relay does not open it again. The members are two
 * MCP Java SDK servers; each tells its sessions {@code notifications/tools/list_changed} on their GET streams.
 */
class WithdrawnMemberStreamReloadTest {

	private static final String NARROW = "narrow-key-for-withdrawn-member-streams";

	static SdkMcpUpstream alpha;

	static SdkMcpUpstream beta;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[alpha, beta]"))
		.peer(() -> alpha = new SdkMcpUpstream())
		.peer(() -> beta = new SdkMcpUpstream());

	@Test
	void aReopenedGetCarriesNothingOfTheMemberTheKeyLost() throws Exception {
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(narrow, "v");
		try (OpenSse before = get(narrow, session)) {
			Awaitility.await("both member streams open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
			alpha.notifyToolsListChanged();
			assertThat(before.next().path("method").asText()).as("alpha's events reach the key while it may use alpha")
				.isEqualTo("notifications/tools/list_changed");

			live.reload(config("[beta]"), ReloadOutcome.APPLIED);
			before.awaitEnd();
		}

		alpha.clearSeen();
		try (OpenSse reopened = get(narrow, session)) {
			alpha.notifyToolsListChanged();
			beta.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("beta's events still flow")
				.isEqualTo("notifications/tools/list_changed");
			// a member stream that ended is opened again within StreamBackoff.FIRST (and a quarter): watch that long
			Awaitility.await("nothing of alpha's reaches the key, and alpha is not asked for a stream again")
				.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
				.until(() -> reopened.received().size() == 1 && alphaGets().isEmpty());
		}
	}

	/**
	 * Review 44k K1: a member a reload gave back to the key after the client reopened its GET on the narrower set is
	 * read on that GET at once (its stream opened as a member joined late), not only on a GET the client might open
	 * later: its notifications reach the client, and a call to it goes on.
	 */
	@Test
	void aMemberGivenBackIsReadOnTheGetTheClientHas() throws Exception {
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = narrowedWhileItsGetWasOpen(narrow, alphaGets, betaGets);
		try (OpenSse reopened = get(narrow, session)) {
			live.reload(config("[alpha, beta]"), ReloadOutcome.APPLIED);
			Awaitility.await("alpha's stream is opened again on the GET the client has").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 2);
			alpha.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("alpha's events reach the key again")
				.isEqualTo("notifications/tools/list_changed");
			assertThat(session.post(RawHttp.toolsCall(7, "alpha_echo")).statusCode()).as("a call to alpha")
				.isEqualTo(200);
		}
	}

	/**
	 * Review 44n N-H1: a member given back on the client's open GET is governed as the members the GET was admitted
	 * to: a later reload that takes it away again ends the GET ({@code access_withdrawn}, counted), and nothing of it
	 * reaches the client after. The GET is judged against the members its session reads now, not its admission.
	 */
	@Test
	void aMemberGivenBackOnTheOpenGetIsTakenAwayAgainByTheNextNarrowing() throws Exception {
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = narrowedWhileItsGetWasOpen(narrow, alphaGets, betaGets);
		try (OpenSse reopened = get(narrow, session)) {
			live.reload(config("[alpha, beta]"), ReloadOutcome.APPLIED);
			Awaitility.await("alpha's stream is opened again on the GET the client has").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 2);
			alpha.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("alpha is read on the open GET")
				.isEqualTo("notifications/tools/list_changed");
			double ended = live.relay().streamsEnded("v");

			live.reload(config("[beta]"), ReloadOutcome.APPLIED);
			List<?> carried = reopened.awaitEnd();
			assertThat(live.relay().streamsEnded("v")).as("the GET's end, counted").isEqualTo(ended + 1);
			alpha.notifyToolsListChanged();
			assertThat(reopened.received()).as("nothing of alpha's after").hasSameSizeAs(carried);
		}
	}

	/**
	 * Review 44n N-H1, the same root: a member the session joins late (a call to it, once a reload let the key use
	 * it) has its stream join the client's open GET; a later reload that takes it away again ends that GET.
	 */
	@Test
	void aMemberJoinedLateOnTheOpenGetIsTakenAwayAgainByTheNextNarrowing() throws Exception {
		live.reload(config("[beta]"), ReloadOutcome.APPLIED);
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(narrow, "v");
		try (OpenSse open = get(narrow, session)) {
			Awaitility.await("beta's stream open").atMost(Duration.ofSeconds(20))
				.until(() -> beta.getsServed() == betaGets + 1);
			live.reload(config("[alpha, beta]"), ReloadOutcome.APPLIED);
			assertThat(session.post(RawHttp.toolsCall(7, "alpha_echo")).statusCode()).as("a call joins alpha")
				.isEqualTo(200);
			Awaitility.await("alpha's stream joins the open GET").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 1);
			double ended = live.relay().streamsEnded("v");

			live.reload(config("[beta]"), ReloadOutcome.APPLIED);
			open.awaitEnd();
			assertThat(live.relay().streamsEnded("v")).as("the GET's end, counted").isEqualTo(ended + 1);
		}
	}

	/**
	 * Review 44n N-M1: the watch for a member given back lives as long as the GET's body: GETs the client resets before
	 * their body is written leave nothing behind, so that a reload that gives the member back later opens its stream
	 * for no GET.
	 */
	@Test
	void getsTheClientResetsLeaveNoWatchBehind() throws Exception {
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = narrowedWhileItsGetWasOpen(narrow, alphaGets, betaGets);
		try (OpenSse reopened = get(narrow, session)) {
			// alpha's stream, which the key may no longer use, ended before the answer; beta's is open once it sends
			// (the SDK's server sends a stream's headers with its first event): a GET is answered at once from now on
			beta.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).isEqualTo("notifications/tools/list_changed");
		}
		for (int i = 0; i < 10; i++) {
			resetAfterItsRequest(session);
		}
		live.reload(config("[alpha, beta]"), ReloadOutcome.APPLIED);
		Awaitility.await("alpha is not opened again: no client GET is open")
			.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
			.until(() -> alpha.getsServed() == alphaGets + 1);
	}

	/** A GET of {@code session} whose connection the client resets (RST) right after sending it. */
	private static void resetAfterItsRequest(McpSession session) throws Exception {
		try (Socket socket = new Socket("127.0.0.1", TwoRelaysOverRedis.port(live.relay().context()))) {
			socket.setSoLinger(true, 0);
			socket.getOutputStream().write(("GET /mcp/v HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + NARROW
					+ "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + session.id()
					+ "\r\nMCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().flush();
		}
	}

	/**
	 * Review 44f N2: a member whose server a reload changed (its headers) is read again on the new settings once the
	 * client opens its GET again, never on the old ones: its stream, ended for good on them, leaves the session, and
	 * the new GET opens it on the settings it was admitted on.
	 */
	@Test
	void aMemberWhoseServerAReloadChangedIsReadOnItsNewSettingsOnTheNextGet() throws Exception {
		RawHttp narrow = live.http("X-Api-Key", NARROW);
		int alphaGets = alpha.getsServed();
		int betaGets = beta.getsServed();
		McpSession session = McpSession.open(narrow, "v");
		try (OpenSse before = get(narrow, session)) {
			Awaitility.await("both member streams open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
			live.reload(config("[alpha, beta]", "second"), ReloadOutcome.APPLIED);
		}
		alpha.clearSeen();
		try (OpenSse reopened = get(narrow, session)) {
			Awaitility.await("alpha's stream is opened again, on its new settings").atMost(Duration.ofSeconds(20))
				.until(() -> alphaGets().stream().anyMatch(get -> "second".equals(get.headers().getFirst("X-Secret"))));
			assertThat(alphaGets()).as("never on the old ones")
				.noneMatch(get -> "first".equals(get.headers().getFirst("X-Secret")));
			Awaitility.await("alpha's stream is open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() >= alphaGets + 2);
			alpha.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("alpha's events reach the client again")
				.isEqualTo("notifications/tools/list_changed");
		}
	}

	/**
	 * A session of {@code narrow}'s on {@code v} whose GET read both members ({@code alphaGets}, {@code betaGets}: the
	 * GETs each member had served before) until a reload narrowed the key to beta and ended it.
	 */
	private static McpSession narrowedWhileItsGetWasOpen(RawHttp narrow, int alphaGets, int betaGets)
			throws Exception {
		McpSession session = McpSession.open(narrow, "v");
		try (OpenSse before = get(narrow, session)) {
			Awaitility.await("both member streams open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == alphaGets + 1 && beta.getsServed() == betaGets + 1);
			live.reload(config("[beta]"), ReloadOutcome.APPLIED);
			before.awaitEnd();
		}
		return session;
	}

	private static OpenSse get(RawHttp http, McpSession session) {
		return new OpenSse(http.open(http.request("v")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
	}

	private static List<SdkMcpUpstream.Seen> alphaGets() {
		return alpha.seen().stream().filter(seen -> seen.method().equals("GET")).toList();
	}

	static String config(String servers) {
		return config(servers, "first");
	}

	/** The configuration, alpha sent header {@code X-Secret} with {@code secret}. */
	static String config(String servers, String secret) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ "      - client: narrow\n        key-sha256: \"" + Sha256.hex(NARROW) + "\"\n        servers: " + servers
				+ "\n  servers:\n    alpha:\n      url: " + alpha.url("/mcp")
				+ "\n      headers:\n        - { name: X-Secret, value: \"" + secret + "\" }\n    beta:\n      url: "
				+ beta.url("/mcp") + "\n  virtual-servers:\n    v:\n      members: [alpha, beta]\n";
	}

}
