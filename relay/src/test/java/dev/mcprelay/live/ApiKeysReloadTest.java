package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * {@code security.api-keys} edited in the mounted file of a running relay in {@code api-key} mode, in front of a real
 * MCP server (its {@code progress} tool holds a call's stream open until the test lets it go) and a scripted one that
 * holds a GET stream open: a revoked key is refused (401) from the next request and its open streams, a call streaming
 * its answer and a GET stream, end at once (reason {@code access_withdrawn}, counted), while another key's run on; a
 * key whose {@code servers} lose a server has its streams there ended and no others, also through a virtual server (a
 * call through the member it lost ends, a call through the member it keeps is answered); a renamed key's streams end
 * (its caller is another now) and its next request is served; a revoked key's GET stream on a virtual server, which the
 * relay serves itself, ends too; a key added by a reload serves, its hash a placeholder resolved as at start-up; an
 * invalid key edit is refused whole, the running keys serving.
 */
class ApiKeysReloadTest {

	private static final String ALICE = "alice-key-for-reloads";

	private static final String BOB = "bob-key-for-reloads";

	private static final String CAROL = "carol-key-for-reloads";

	/** dave's key, whose servers no reload here narrows. */
	private static final String DAVE = "dave-key-for-reloads";

	static SdkMcpUpstream upstream;

	static ScriptedUpstream streaming;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture
		.startingOn(() -> config(startKeys()), "--carol.key-sha256=" + Sha256.hex(CAROL))
		.peer(() -> upstream = new SdkMcpUpstream())
		.peer(() -> streaming = HeldStreams.getStreamingUpstream());

	@AfterEach
	void letHeldCallsGo() {
		upstream.releaseProgress();
	}

	@Test
	void aRevokedKeyIsRefusedFromTheNextRequestAndItsOpenStreamsEndWhileAnotherKeysRunOn() throws Exception {
		upstream.resetProgressGate();
		HttpResponse<InputStream> aliceCall = HeldStreams.call(live.relay(), caller(ALICE), "alpha", 21);
		HttpResponse<InputStream> bobCall = HeldStreams.call(live.relay(), caller(BOB), "alpha", 22);
		HttpResponse<InputStream> aliceGet = HeldStreams.get(caller(ALICE), "streaming");
		double alphaEnded = live.relay().streamsEnded("alpha");
		double streamingEnded = live.relay().streamsEnded("streaming");
		double streamingReloaded = live.relay().requests("streaming", "reloaded");

		live.reload(config(key("bob", Sha256.hex(BOB), "[alpha]")), ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(aliceCall, 21, "access_withdrawn");
		assertThat(RawHttp.readAll(aliceGet.body())).as("alice's GET stream ends, cleanly").isNotNull();
		assertThat(live.relay().streamsEnded("alpha")).as("alice's call, counted").isEqualTo(alphaEnded + 1);
		assertThat(live.relay().streamsEnded("streaming")).as("alice's GET stream, counted").isEqualTo(streamingEnded + 1);
		awaitRecordedAsReloaded("streaming", streamingReloaded);
		upstream.releaseProgress();
		HeldStreams.assertAnswered(bobCall, 22);
		assertThat(status(caller(ALICE), "alpha")).as("the revoked key's next request").isEqualTo(401);
		assertThat(status(caller(BOB), "alpha")).isEqualTo(200);
		assertThat(live.relay().streamsEnded("alpha")).as("bob's call was not ended").isEqualTo(alphaEnded + 1);
	}

	@Test
	void aRevokedKeysGetStreamOnAVirtualServerEndsToo() throws Exception {
		HttpResponse<InputStream> merged = HeldStreams.getHeaders(caller(ALICE), "hub");
		double hubEnded = live.relay().streamsEnded("hub");
		double hubReloaded = live.relay().requests("hub", "reloaded");

		live.reload(config(key("bob", Sha256.hex(BOB), "[alpha]")), ReloadOutcome.APPLIED);

		assertThat(RawHttp.readAll(merged.body())).as("the virtual server's GET stream ends, cleanly").isNotNull();
		assertThat(live.relay().streamsEnded("hub")).isEqualTo(hubEnded + 1);
		awaitRecordedAsReloaded("hub", hubReloaded);
	}

	/**
	 * Review 44g's N5b: a GET stream a reload ended is recorded with outcome {@code reloaded} (its meter and its access
	 * line), as the calls it ends are, not as forwarded; once its exchange ended, just after its client read the end.
	 */
	private static void awaitRecordedAsReloaded(String server, double before) {
		org.awaitility.Awaitility.await("the GET stream on " + server + " recorded as ended by the reload")
			.atMost(java.time.Duration.ofSeconds(30))
			.until(() -> live.relay().requests(server, "reloaded") == before + 1);
	}

	@Test
	void aKeyThatLosesOneMemberOfAVirtualServerHasItsMergedGetStreamEndedAndItsNextOneNarrower() throws Exception {
		HttpResponse<InputStream> merged = HeldStreams.getHeaders(caller(ALICE), "pair");
		HttpResponse<InputStream> daves = HeldStreams.getHeaders(caller(DAVE), "pair");
		double pairEnded = live.relay().streamsEnded("pair");

		live.reload(config(key("alice", Sha256.hex(ALICE), "[alpha, streaming, hub]")
				+ key("bob", Sha256.hex(BOB), "[alpha]") + key("dave", Sha256.hex(DAVE), "[streaming, beta]")),
				ReloadOutcome.APPLIED);

		assertThat(RawHttp.readAll(merged.body())).as("the merged GET of the member alice lost ends, cleanly")
			.isNotNull();
		assertThat(live.relay().streamsEnded("pair")).as("counted once: dave's runs on").isEqualTo(pairEnded + 1);
		assertThat(status(caller(ALICE), "pair")).as("opened again, on the member left").isEqualTo(200);
		daves.body().close();
	}

	@Test
	void aKeyThatLosesOneMemberOfAVirtualServerHasItsCallThroughThatMemberEndedAndItsCallThroughTheOtherAnswered()
			throws Exception {
		upstream.resetProgressGate();
		McpSession session = McpSession.open(caller(ALICE), "duo");
		HttpResponse<InputStream> throughAlpha = HeldStreams.call(live.relay(), session, "alpha_progress", 51);
		HttpResponse<InputStream> throughBeta = HeldStreams.call(live.relay(), session, "beta_progress", 52);
		double duoEnded = live.relay().streamsEnded("duo");

		live.reload(config(key("alice", Sha256.hex(ALICE), "[alpha, streaming, hub]")
				+ key("bob", Sha256.hex(BOB), "[alpha]") + key("dave", Sha256.hex(DAVE), "[streaming, beta]")),
				ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(throughBeta, 52, "access_withdrawn");
		assertThat(live.relay().streamsEnded("duo")).as("the call through the member alice lost, counted")
			.isEqualTo(duoEnded + 1);
		upstream.releaseProgress();
		HeldStreams.assertAnswered(throughAlpha, 51);
		assertThat(live.relay().streamsEnded("duo")).as("the call through the member alice keeps was not ended")
			.isEqualTo(duoEnded + 1);
	}

	@Test
	void aKeyWhoseServersLoseAServerHasItsStreamsThereEndedAndNoOthers() throws Exception {
		upstream.resetProgressGate();
		HttpResponse<InputStream> onAlpha = HeldStreams.call(live.relay(), caller(ALICE), "alpha", 31);
		HttpResponse<InputStream> onBeta = HeldStreams.call(live.relay(), caller(ALICE), "beta", 32);
		double betaEnded = live.relay().streamsEnded("beta");

		live.reload(config(key("alice", Sha256.hex(ALICE), "[alpha, streaming, hub]")
				+ key("bob", Sha256.hex(BOB), "[alpha]")), ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(onBeta, 32, "access_withdrawn");
		assertThat(live.relay().streamsEnded("beta")).isEqualTo(betaEnded + 1);
		upstream.releaseProgress();
		HeldStreams.assertAnswered(onAlpha, 31);
		assertThat(status(caller(ALICE), "beta")).as("the server the key lost").isEqualTo(403);
		assertThat(status(caller(ALICE), "alpha")).isEqualTo(200);
	}

	@Test
	void aRenamedKeysStreamsEndAndItsNextRequestIsServedUnderItsNewName() throws Exception {
		upstream.resetProgressGate();
		HttpResponse<InputStream> call = HeldStreams.call(live.relay(), caller(ALICE), "alpha", 41);

		live.reload(config(key("alice-renamed", Sha256.hex(ALICE),
				"[alpha, beta, streaming, hub]") + key("bob", Sha256.hex(BOB), "[alpha]")), ReloadOutcome.APPLIED);

		HeldStreams.assertEndedWith(call, 41, "access_withdrawn");
		assertThat(status(caller(ALICE), "alpha")).isEqualTo(200);
	}

	@Test
	void aKeyAddedByAReloadServesItsHashAPlaceholderResolvedAsAtStartUp() throws Exception {
		assertThat(status(caller(CAROL), "alpha")).isEqualTo(401);

		live.reload(config(startKeys() + key("carol", "${carol.key-sha256}", "[alpha]")), ReloadOutcome.APPLIED);

		assertThat(status(caller(CAROL), "alpha")).isEqualTo(200);
		assertThat(status(caller(ALICE), "alpha")).isEqualTo(200);
	}

	@Test
	void aChangeToJwtModeIsReportedAsNeedingARestartAndTheKeysServeOnUntilThen() throws Exception {
		String jwtMode = config("").replace("    mode: api-key\n    api-keys:\n", "    mode: jwt\n    jwt:\n"
				+ "      issuer-uri: http://127.0.0.1:9/issuer\n      audience: relay\n");

		live.reload(jwtMode, ReloadOutcome.RESTART_REQUIRED);

		assertThat(live.relay().current().properties().security().apiKeys()).as("the keys run on with the running mode")
			.isNotEmpty();
		assertThat(live.relay().current().properties().security().jwt().audience()).isNull();
		assertThat(status(caller(ALICE), "alpha")).isEqualTo(200);
	}

	@Test
	void anInvalidKeyEditIsRefusedWholeAndTheRunningKeysServe() throws Exception {
		String running = live.relay().checksum();

		live.reload(config(key("alice", "not-a-sha-256", "[alpha]")), ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).isEqualTo(running);
		assertThat(status(caller(ALICE), "beta")).as("alice's running key, with its servers").isEqualTo(200);
		assertThat(status(caller(BOB), "alpha")).as("bob, whom the refused edit removed").isEqualTo(200);
	}

	private static int status(RawHttp http, String server) {
		return http.send(http.post(server, McpSession.initialize(1))).statusCode();
	}

	private static RawHttp caller(String key) {
		return live.http("X-Api-Key", key);
	}

	private static String startKeys() {
		return key("alice", Sha256.hex(ALICE), "[alpha, beta, streaming, hub]") + key("bob", Sha256.hex(BOB), "[alpha]")
				+ key("dave", Sha256.hex(DAVE), "[streaming, beta]");
	}

	static String key(String client, String sha256, String servers) {
		return "      - client: " + client + "\n        key-sha256: \"" + sha256 + "\"\n        servers: " + servers
				+ "\n";
	}

	static String config(String keys) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ keys + "  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n    beta:\n      url: "
				+ upstream.url("/mcp") + "\n    streaming:\n      url: " + streaming.url("/mcp")
				+ "\n  virtual-servers:\n    hub:\n      members: [streaming]\n    pair:\n"
				+ "      members: [streaming, beta]\n    duo:\n      members: [alpha, beta]\n";
	}

}
