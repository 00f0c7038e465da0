package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 44o O-H1: a call admitted on its headers before a reload narrowed its key off a member, whose body arrives
 * after the narrowing, is refused ({@code access_withdrawn}) and opens nothing of that member on the session: not on
 * the GET the client reopened on the narrower set (which carries only what its own access may read), nor, with no GET
 * open, for the client's next. The members are two MCP Java SDK servers; each tells its sessions
 * {@code notifications/tools/list_changed} on their GET streams.
 */
class CallAdmittedBeforeNarrowingTest {

	private static final String KEY = "key-for-calls-admitted-before-a-narrowing";

	static SdkMcpUpstream alpha;

	static SdkMcpUpstream beta;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[alpha, beta]"))
		.peer(() -> alpha = new SdkMcpUpstream())
		.peer(() -> beta = new SdkMcpUpstream());

	@Test
	void aSlowCallOpensNothingOfTheLostMemberOnTheReopenedGet() throws Exception {
		RawHttp http = live.http("X-Api-Key", KEY);
		Streams opened = new Streams(alpha.getsServed(), beta.getsServed());
		McpSession session = McpSession.open(http, "v");
		try (SlowCall call = narrowedWhileItsBodyArrives(http, session, opened);
				OpenSse reopened = get(http, session)) {
			beta.notifyToolsListChanged();
			assertThat(reopened.next().path("method").asText()).as("beta's events flow on the reopened GET")
				.isEqualTo("notifications/tools/list_changed");
			int alphaGets = alpha.getsServed();

			assertThat(call.finish()).as("the call, its body in after the narrowing").contains("access_withdrawn");
			alpha.notifyToolsListChanged();
			// a member stream opened late is opened within a poll of the call's end: watch well past it
			Awaitility.await("nothing of alpha's reaches the GET, and alpha is not asked for a stream")
				.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
				.until(() -> reopened.received().size() == 1 && alpha.getsServed() == alphaGets);
			assertThat(reopened.ended()).as("the GET runs on").isFalse();
		}
	}

	@Test
	void aSlowCallOpensNothingOfTheLostMemberWhileNoGetIsOpen() throws Exception {
		RawHttp http = live.http("X-Api-Key", KEY);
		Streams opened = new Streams(alpha.getsServed(), beta.getsServed());
		McpSession session = McpSession.open(http, "v");
		try (SlowCall call = narrowedWhileItsBodyArrives(http, session, opened)) {
			try (OpenSse reopened = get(http, session)) {
				beta.notifyToolsListChanged();
				assertThat(reopened.next().path("method").asText()).isEqualTo("notifications/tools/list_changed");
			}
			Awaitility.await("the reopened GET is gone").atMost(Duration.ofSeconds(20))
				.until(() -> activeStreams() == 0);
			int alphaGets = alpha.getsServed();

			assertThat(call.finish()).as("the call, its body in after the narrowing").contains("access_withdrawn");
			Awaitility.await("alpha is not asked for a stream for the client's next GET")
				.pollDelay(Duration.ofMillis(100)).during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
				.until(() -> alpha.getsServed() == alphaGets);
		}
	}

	/** The GETs each member had served before a session opened. */
	private record Streams(int alpha, int beta) {
	}

	/**
	 * A call to alpha admitted (its headers and part of its body sent) while the key may use alpha, then a reload that
	 * narrows the key to beta, which ends the client's GET; the members' streams opened for the session
	 * (counted from {@code before}).
	 */
	private static SlowCall narrowedWhileItsBodyArrives(RawHttp http, McpSession session, Streams before)
			throws Exception {
		try (OpenSse open = get(http, session)) {
			Awaitility.await("both member streams open").atMost(Duration.ofSeconds(20))
				.until(() -> alpha.getsServed() == before.alpha() + 1 && beta.getsServed() == before.beta() + 1);
			SlowCall call = SlowCall.begin(live, session, "X-Api-Key: " + KEY, RawHttp.toolsCall(7, "alpha_echo"));
			live.reload(config("[beta]"), ReloadOutcome.APPLIED);
			open.awaitEnd();
			return call;
		}
	}

	private static double activeStreams() {
		Gauge active = live.relay().context().getBean(MeterRegistry.class).find(RelayMeters.ACTIVE_STREAMS)
			.tag("server", "v").gauge();
		return active == null ? 0 : active.value();
	}

	private static OpenSse get(RawHttp http, McpSession session) {
		return new OpenSse(http.open(http.request("v")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", session.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()));
	}

	static String config(String servers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ "      - client: slow\n        key-sha256: \"" + Sha256.hex(KEY) + "\"\n        servers: " + servers
				+ "\n  servers:\n    alpha:\n      url: " + alpha.url("/mcp") + "\n    beta:\n      url: "
				+ beta.url("/mcp") + "\n  virtual-servers:\n    v:\n      members: [alpha, beta]\n";
	}

}
