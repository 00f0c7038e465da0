package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestAuthorizationServer;

/**
 * In {@code security.mode: jwt}, with real tokens and a real MCP server: a reload that changes a server's
 * {@code allowed-scopes} so that a caller's token no longer opens it ends that caller's open streams at once (its call
 * streaming its answer given a JSON-RPC error, reason {@code access_withdrawn}, counted), while the streams of a caller
 * the new scopes still admit run on to their end. A GET stream ends through the same path (the body relayed, cut by
 * {@code OpenStreams}); it is not opened here: a GET to the SDK's server got no head within the client's timeout.
 */
class AccessWithdrawnReloadTest {

	static final String AUDIENCE = "mcp-relay-test";

	static TestAuthorizationServer auth;

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config("[alpha.use, alpha.admin]"))
		.peer(() -> auth = new TestAuthorizationServer())
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aReloadThatWithdrawsACallersAccessEndsItsStreamsAndNoOneElses() throws Exception {
		McpSession alice = McpSession.open(caller("alice", "alpha.use"), "alpha");
		McpSession bob = McpSession.open(caller("bob", "alpha.admin"), "alpha");
		upstream.resetProgressGate();
		HttpResponse<InputStream> aliceCall = open(alice, 21);
		HttpResponse<InputStream> bobCall = open(bob, 22);
		double ended = withdrawn();
		double reloaded = requests("reloaded");
		double shutdown = requests("shutdown");

		live.reload(config("[alpha.admin]"), ReloadOutcome.APPLIED);

		// the upstream holds both calls open (its progress gate is not released yet): only the reload ends alice's
		List<JsonNode> aliceEvents = RawHttp.sseData(RawHttp.readAll(aliceCall.body()));
		assertThat(aliceEvents).as("alice's call is answered with an error and ends: %s", aliceEvents).last()
			.satisfies(answer -> {
				assertThat(answer.path("id").asInt()).isEqualTo(21);
				assertThat(answer.at("/error/data/reason").asText()).isEqualTo("access_withdrawn");
			});
		assertThat(withdrawn()).as("alice's call, counted").isEqualTo(ended + 1);
		assertThat(requests("reloaded")).as("recorded as ended by a reload").isEqualTo(reloaded + 1);
		assertThat(requests("shutdown")).as("not as a shutdown").isEqualTo(shutdown);

		upstream.releaseProgress();
		List<JsonNode> bobEvents = RawHttp.sseData(RawHttp.readAll(bobCall.body()));
		assertThat(bobEvents).as("bob's call, which the new scopes admit, runs to its answer: %s", bobEvents).last()
			.satisfies(answer -> {
				assertThat(answer.path("id").asInt()).isEqualTo(22);
				assertThat(answer.has("result")).isTrue();
			});
		assertThat(withdrawn()).isEqualTo(ended + 1);
		assertThat(caller("alice", "alpha.use").send(caller("alice", "alpha.use").post("alpha",
				McpSession.initialize(1))).statusCode()).as("and alice's next request is refused").isEqualTo(403);
	}

	private static HttpResponse<InputStream> open(McpSession session, int id) {
		HttpResponse<InputStream> call = live.http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":" + id
				+ ",\"method\":\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":"
				+ "{\"progressToken\":\"p-" + id + "\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);
		return call;
	}

	private static double withdrawn() {
		var counter = live.relay().context().getBean(io.micrometer.core.instrument.MeterRegistry.class)
			.find("mcp.relay.streams.ended").tag("server", "alpha").tag("reason", "access_withdrawn").counter();
		return counter == null ? 0 : counter.count();
	}

	private static double requests(String outcome) {
		return live.relay().requests("alpha", outcome);
	}

	private static RawHttp caller(String subject, String scope) {
		return live.http("Authorization", "Bearer " + auth.token(AUDIENCE, subject, scope, Map.of()));
	}

	static String config(String allowedScopes) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: " + auth.issuer() + "\n      audience: " + AUDIENCE + "\n  servers:\n    alpha:\n"
				+ "      url: " + upstream.url("/mcp") + "\n      allowed-scopes: " + allowedScopes + "\n";
	}

}
