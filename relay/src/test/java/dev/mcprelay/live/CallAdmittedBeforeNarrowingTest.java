package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
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
			SlowCall call = SlowCall.begin(session, RawHttp.toolsCall(7, "alpha_echo"));
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

	/** A POST whose headers and first bytes of body are sent at once, the rest when {@link #finish} is called. */
	private static final class SlowCall implements AutoCloseable {

		private static final int SENT_FIRST = 10;

		private final Socket socket;

		private final byte[] body;

		private SlowCall(Socket socket, byte[] body) {
			this.socket = socket;
			this.body = body;
		}

		static SlowCall begin(McpSession session, String json) throws IOException {
			byte[] body = json.getBytes(StandardCharsets.UTF_8);
			Socket socket = new Socket();
			socket.connect(new InetSocketAddress("127.0.0.1", TwoRelaysOverRedis.port(live.relay().context())), 5000);
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(("POST /mcp/v HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + KEY
					+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nMcp-Session-Id: "
					+ session.id() + "\r\nMCP-Protocol-Version: " + McpSession.PROTOCOL_VERSION
					+ "\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.write(body, 0, SENT_FIRST);
			out.flush();
			return new SlowCall(socket, body);
		}

		/** Sends the rest of the body; the whole answer, up to the connection's close. */
		String finish() throws IOException {
			socket.getOutputStream().write(body, SENT_FIRST, body.length - SENT_FIRST);
			socket.getOutputStream().flush();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}

		@Override
		public void close() throws IOException {
			socket.close();
		}

	}

}
