package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A running relay whose configuration is a Kubernetes-style mounted volume ({@code application.yml} a link into
 * {@code ..data}, itself a link the kubelet swaps to a new folder), in front of real MCP servers, reloaded as the file
 * is swapped and as it is edited in place: what a reload applies, refuses and leaves for a restart, seen from clients.
 */
class LiveConfigurationReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture
		.startingOn(() -> config("alpha"), "--RELOAD_TEST_TOKEN=token-from-start-up")
		.peer(() -> upstream = new SdkMcpUpstream());

	@BeforeEach
	void noRequestSeenYet() {
		// the file is as the relay started (LiveReloadFixture): applied after a test that changed it, unchanged after
		// one refused
		upstream.clearSeen();
	}

	@Test
	void aServerAddedBySwappingTheMountedFolderServesAndARemovedOneIsUnknown() throws Exception {
		live.reload(config("alpha", "beta"), ReloadOutcome.APPLIED);

		assertThat(http().send(http().post("beta", McpSession.initialize(1))).statusCode())
			.as("a server the reload added serves from the next request on").isEqualTo(200);

		live.reload(config("beta"), ReloadOutcome.APPLIED);

		HttpResponse<String> removed = http().send(http().post("alpha", McpSession.initialize(2)));
		assertThat(removed.statusCode()).as("a server the reload removed is unknown").isEqualTo(404);
		assertThat(removed.body()).contains("unknown_server");
		assertThat(http().send(http().post("beta", McpSession.initialize(3))).statusCode()).isEqualTo(200);
	}

	@Test
	void aRemovedServersCallStreamingItsAnswerEndsAtOnceWithAnErrorForTheRequest() throws Exception {
		live.reload(config("alpha", "beta"), ReloadOutcome.APPLIED);
		McpSession session = McpSession.open(http(), "alpha");
		upstream.resetProgressGate();
		HttpResponse<InputStream> call = http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p-1\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);
		assertThat(call.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
			.startsWith("text/event-stream"));
		double ended = live.relay().streamsEnded("alpha");

		live.reload(config("beta"), ReloadOutcome.APPLIED);

		// the upstream holds the call open (its progress gate is never released): only the reload ends it
		List<com.fasterxml.jackson.databind.JsonNode> events = RawHttp.sseData(RawHttp.readAll(call.body()));
		assertThat(events).as("the request still waiting is answered, and the stream ends cleanly: %s", events).last()
			.satisfies(answer -> {
				assertThat(answer.path("id").asInt()).isEqualTo(9);
				assertThat(answer.at("/error/data/reason").asText()).isEqualTo("server_removed");
			});
		assertThat(live.relay().streamsEnded("alpha")).as("counted").isEqualTo(ended + 1);
		assertThat(http().send(http().post("beta", McpSession.initialize(1))).statusCode())
			.as("the other server's sessions are untouched").isEqualTo(200);
		upstream.releaseProgress();
	}

	@Test
	void aStreamOnSettingsAReloadChangedEndsWhenALaterReloadRemovesTheServer() throws Exception {
		live.reload(config("alpha", "beta"), ReloadOutcome.APPLIED);
		McpSession session = McpSession.open(http(), "alpha");
		upstream.resetProgressGate();
		HttpResponse<InputStream> call = http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p-2\"}}}"));
		assertThat(call.statusCode()).isEqualTo(200);

		live.reload(config("alpha", "beta").replaceFirst("\\$\\{RELOAD_TEST_TOKEN}", "changed"), ReloadOutcome.APPLIED);
		live.reload(config("beta"), ReloadOutcome.APPLIED);

		// the call began on alpha's first settings, which the first reload changed: the removal ends it all the same
		List<com.fasterxml.jackson.databind.JsonNode> events = RawHttp.sseData(RawHttp.readAll(call.body()));
		assertThat(events).as("the request still waiting is answered: %s", events).last()
			.satisfies(answer -> assertThat(answer.at("/error/data/reason").asText()).isEqualTo("server_removed"));
		upstream.releaseProgress();
	}

	@Test
	void aChangedHeaderEditedInPlaceReachesTheUpstreamFromTheNextRequest() throws Exception {
		McpSession session = McpSession.open(http(), "alpha");
		assertThat(tokensSeen()).as("the placeholder resolved as at start-up").containsOnly("token-from-start-up");
		upstream.clearSeen();

		live.relay().awaitOutcome(
				() -> live.relay().editInPlace(config("alpha").replace("${RELOAD_TEST_TOKEN}", "rotated")),
				ReloadOutcome.APPLIED);

		assertThat(tokensSeen()).as("nothing was sent upstream by the reload itself").isEmpty();
		assertThat(session.post(RawHttp.toolsCall(7, "echo")).statusCode()).isEqualTo(200);
		assertThat(tokensSeen()).as("the next request carries the new header").containsOnly("rotated");
	}

	@Test
	void anInvalidEditIsRefusedWholeAndTheRunningConfigurationServes() throws Exception {
		String running = live.relay().checksum();

		live.relay().awaitOutcome(
				() -> live.relay().editInPlace(config("alpha", "beta").replace(upstream.url("/stateless"), "not a url")),
				ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).as("the running configuration stays").isEqualTo(running);
		assertThat(http().send(http().post("alpha", McpSession.initialize(1))).statusCode()).isEqualTo(200);
		assertThat(http().send(http().post("beta", McpSession.initialize(1))).statusCode())
			.as("nothing of a refused reload applies, not even its valid part").isEqualTo(404);
	}

	@Test
	void aChangeOfWhatIsCompiledAtStartUpIsRefusedRatherThanHalfApplied() throws Exception {
		java.time.Duration idle = live.relay().current().properties().sessions().idleTimeout();

		live.reload(config("alpha") + "  sessions:\n    idle-timeout: 7m\n", ReloadOutcome.REFUSED);

		assertThat(live.relay().current().properties().sessions().idleTimeout())
			.as("the sessions' settings are not live yet: refused whole, never applied to half the relay")
			.isEqualTo(idle);
	}

	@Test
	void aPortChangeIsReportedAsNeedingARestartAndTheRelayServesOnItsPort() throws Exception {
		live.reload(config("alpha").replace("port: 0", "port: 1"), ReloadOutcome.RESTART_REQUIRED);

		assertThat(http().send(http().post("alpha", McpSession.initialize(1))).statusCode()).isEqualTo(200);
	}

	@Test
	void aModeChangeIsReportedAsNeedingARestartTheSecuritySectionRunsOnAndTheRestApplies() throws Exception {
		String apiKeyMode = config("alpha", "beta").replace("    mode: none\n", "    mode: api-key\n    api-keys:\n"
				+ "      - client: alice\n        key-sha256: \"" + "a".repeat(64) + "\"\n        servers: [\"*\"]\n");
		live.reload(apiKeyMode, ReloadOutcome.RESTART_REQUIRED);

		HttpResponse<String> answer = reloadNow();
		JsonNode outcome = RawHttp.json(answer.body());
		assertThat(outcome.path("outcome").asText()).as(answer.body()).isEqualTo(ReloadOutcome.RESTART_REQUIRED);
		assertThat(answer.body()).contains("mcp-relay.security.mode").doesNotContain("api-keys");
		assertThat(outcome.path("problems").size()).isZero();
		assertThat(http().send(http().post("beta", McpSession.initialize(1))).statusCode())
			.as("the server added beside the mode change serves, in the running mode (no key)").isEqualTo(200);
		assertThat(live.relay().current().properties().security().apiKeys()).as("the keys wait for the mode").isEmpty();
	}

	@Test
	void theActuatorReloadsOnDemandAndSaysNothingChanged() throws Exception {
		HttpResponse<String> answer = reloadNow();

		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
		assertThat(RawHttp.json(answer.body()).path("outcome").asText()).isEqualTo(ReloadOutcome.UNCHANGED);
		assertThat(RawHttp.json(answer.body()).path("checksum").asText()).isEqualTo(live.relay().checksum());
	}

	@Test
	void aRefusedReloadNamesTheOffendingPropertyAndNeverItsValue() throws Exception {
		int mark = CapturedLogs.all().size();
		live.reload(config("alpha") + "      timeouts:\n        non-streaming: sk-live-4f2a9c\n", ReloadOutcome.REFUSED);

		HttpResponse<String> answer = reloadNow();
		assertThat(RawHttp.json(answer.body()).path("outcome").asText()).isEqualTo(ReloadOutcome.REFUSED);
		assertThat(answer.body()).as("the answer names the property").contains("mcp-relay.servers.alpha.timeouts.non-streaming")
			.doesNotContain("sk-live-4f2a9c");
		assertThat(CapturedLogs.since(mark)).as("the log names it too, never its value")
			.anyMatch(line -> line.contains("mcp-relay.servers.alpha.timeouts.non-streaming"))
			.noneMatch(line -> line.contains("sk-live-4f2a9c"));
	}

	@Test
	void aFileThatIsNoYamlIsRefusedNamingTheKindOfErrorAndWhereNeverTheFilesText() throws Exception {
		int mark = CapturedLogs.all().size();
		live.reload(config("alpha") + "  allowed-origins: *S3CRET-in-an-alias\n", ReloadOutcome.REFUSED);

		HttpResponse<String> answer = reloadNow();
		assertThat(RawHttp.json(answer.body()).path("outcome").asText()).isEqualTo(ReloadOutcome.REFUSED);
		assertThat(answer.body()).as("the kind of error and where").contains("malformed YAML")
			.contains("at line 12, column ").doesNotContain("S3CRET");
		assertThat(CapturedLogs.since(mark)).as("the log says where, never the text")
			.anyMatch(line -> line.contains("malformed YAML")).noneMatch(line -> line.contains("S3CRET"));
	}

	@Test
	void aBrowserPageFromAnOriginNotAllowedCannotReload() throws Exception {
		double applied = live.relay().count(ReloadOutcome.UNCHANGED);
		HttpResponse<String> answer = http().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
				+ TwoRelaysOverRedis.port(live.relay().context()) + "/actuator/reload"))
			.header("Origin", "https://evil.example")
			.POST(HttpRequest.BodyPublishers.noBody()));

		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(403);
		assertThat(RawHttp.json(answer.body()).at("/error/data/reason").asText()).isEqualTo("origin_not_allowed");
		assertThat(live.relay().count(ReloadOutcome.UNCHANGED)).as("no reload ran").isEqualTo(applied);
	}

	private static RawHttp http() {
		return live.http();
	}

	/** POST /actuator/reload. */
	private static HttpResponse<String> reloadNow() {
		return http().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
				+ TwoRelaysOverRedis.port(live.relay().context()) + "/actuator/reload"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.noBody()));
	}

	private static List<String> tokensSeen() {
		return upstream.seen().stream().map(seen -> seen.headers().getFirst("X-Upstream-Token")).toList();
	}

	/** The configuration with these servers: alpha the Streamable HTTP server, beta the stateless one. */
	static String config(String... servers) {
		StringBuilder yaml = new StringBuilder("server:\n  port: 0\n  address: 127.0.0.1\n"
				+ "mcp-relay:\n  security:\n    mode: none\n  servers:\n");
		for (String server : servers) {
			yaml.append("    ").append(server).append(":\n      url: ")
				.append(upstream.url(server.equals("alpha") ? "/mcp" : "/stateless")).append('\n')
				.append("      headers:\n        - { name: X-Upstream-Token, value: \"${RELOAD_TEST_TOKEN}\" }\n");
		}
		return yaml.toString();
	}

}
