package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * A caller sees and reaches only the members its key opens (DESIGN section 11): {@code alice}'s key opens one member,
 * and the other's tools are neither listed nor callable (the error of an unknown tool), nor do its resources make a
 * URI ambiguous; {@code bob}'s key names the virtual server and opens every member; {@code carol}'s opens none and is
 * refused at the door; and a virtual session belongs to the caller that opened it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualServerAccessTest {

	static final String ALICE_KEY = "alice-key-0a1b2c3d4e5f60718293";

	static final String BOB_KEY = "bob-key-94a3b2c1d0e9f8a7b6c5";

	static final String CAROL_KEY = "carol-key-5e4d3c2b1a0f9e8d7c6b";

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "alice");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> sha256(ALICE_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "alpha");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "bob");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> sha256(BOB_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "all");
		registry.add("mcp-relay.security.api-keys[2].client", () -> "carol");
		registry.add("mcp-relay.security.api-keys[2].key-sha256", () -> sha256(CAROL_KEY));
		registry.add("mcp-relay.security.api-keys[2].servers[0]", () -> "other");
		registry.add("mcp-relay.servers.alpha.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.beta.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.servers.other.url", () -> TestUpstreams.SDK.url("/stateless"));
		registry.add("mcp-relay.virtual-servers.all.members", () -> "alpha,beta");
	}

	@Test
	void aCallerSeesAndReachesOnlyTheMembersItsKeyOpens() {
		McpSession alice = McpSession.open(new RawHttp(port, "X-Api-Key", ALICE_KEY), "all");

		assertThat(toolNames(alice)).contains("alpha_echo").noneMatch(name -> name.startsWith("beta_"));
		JsonNode hidden = RawHttp.json(alice.post(RawHttp.toolsCall(3, "beta_echo")).body());
		JsonNode unknown = RawHttp.json(alice.post(RawHttp.toolsCall(4, "gamma_echo")).body());
		com.fasterxml.jackson.databind.node.ObjectNode expected = (com.fasterxml.jackson.databind.node.ObjectNode) unknown
			.path("error").deepCopy();
		expected.put("message", expected.path("message").asText().replace("gamma_echo", "beta_echo"));
		assertThat(hidden.path("error")).as("a member the key does not open is an unknown tool, word for word")
			.isEqualTo(expected);
		List<JsonNode> answered = RawHttp.messagesOf(alice.post(
				"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":\"memo://one\"}}"));
		JsonNode read = answered.get(answered.size() - 1);
		assertThat(read.has("result")).as("only alpha publishes memo://one for alice: %s", read).isTrue();
	}

	@Test
	void aKeyThatNamesTheVirtualServerOpensEveryMember() {
		McpSession bob = McpSession.open(new RawHttp(port, "X-Api-Key", BOB_KEY), "all");

		assertThat(toolNames(bob)).contains("alpha_echo", "beta_echo");
	}

	@Test
	void aKeyThatOpensNoMemberIsRefusedAtTheDoor() {
		RawHttp carol = new RawHttp(port, "X-Api-Key", CAROL_KEY);

		HttpResponse<String> refused = carol.send(carol.post("all", McpSession.initialize(1)));

		assertThat(refused.statusCode()).isEqualTo(403);
	}

	/**
	 * Bob's POST, GET and DELETE under Alice's session id are each 404, and are none of Alice's business: her member
	 * session is not ended (no DELETE reaches the member), her GET stream stays open, and her next call goes to the
	 * member in the session it had.
	 */
	@Test
	void anotherCallerCannotUseAVirtualSessionNorEndIt() throws Exception {
		RawHttp aliceHttp = new RawHttp(port, "X-Api-Key", ALICE_KEY);
		java.util.Set<String> before = sdkSessions("GET");
		McpSession alice = McpSession.open(aliceHttp, "all");
		// the relay opens alpha's stream as soon as alice said notifications/initialized: her member session
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(10))
			.until(() -> !difference(sdkSessions("GET"), before).isEmpty());
		java.util.Set<String> members = difference(sdkSessions("GET"), before);
		HttpResponse<java.io.InputStream> stream = aliceHttp.open(aliceHttp.request("all")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", alice.id())
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		java.util.concurrent.CompletableFuture<String> read = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> RawHttp.readAll(stream.body()));
		RawHttp bob = new RawHttp(port, "X-Api-Key", BOB_KEY);

		HttpResponse<String> post = bob.send(bob.post("all", RawHttp.toolsCall(9, "alpha_echo"))
			.header("Mcp-Session-Id", alice.id()));
		HttpResponse<String> get = bob.send(bob.request("all")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", alice.id())
			.GET());
		HttpResponse<String> delete = bob.send(bob.request("all").DELETE().header("Mcp-Session-Id", alice.id()));

		assertThat(post.statusCode()).isEqualTo(404);
		assertThat(get.statusCode()).isEqualTo(404);
		assertThat(delete.statusCode()).isEqualTo(404);
		int postsBefore = sdkPosts(members);
		List<JsonNode> answered = RawHttp.messagesOf(alice.post(RawHttp.toolsCall(10, "alpha_echo")));
		JsonNode called = answered.get(answered.size() - 1);
		assertThat(called.has("result")).as("alice's call after bob's requests: %s", called).isTrue();
		assertThat(sdkPosts(members)).as("her call went to the member in the session it had").isGreaterThan(postsBefore);
		assertThat(sdkSessions("DELETE")).as("no DELETE reached alice's member session").doesNotContainAnyElementsOf(members);
		assertThat(read).as("alice's GET stream is still open").isNotDone();
		alice.post("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}");
		aliceHttp.send(aliceHttp.request("all").DELETE().header("Mcp-Session-Id", alice.id()));
		assertThat(read.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("her own DELETE ends it").isNotNull();
	}

	/** The session ids the SDK server saw requests of {@code method} under, on alpha's path. */
	private static java.util.Set<String> sdkSessions(String method) {
		return TestUpstreams.SDK.seen()
			.stream()
			.filter(seen -> seen.method().equals(method) && seen.path().equals("/mcp"))
			.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
			.filter(java.util.Objects::nonNull)
			.collect(java.util.stream.Collectors.toSet());
	}

	private static int sdkPosts(java.util.Set<String> sessions) {
		return (int) TestUpstreams.SDK.seen()
			.stream()
			.filter(seen -> seen.method().equals("POST") && sessions.contains(seen.headers().getFirst("Mcp-Session-Id")))
			.count();
	}

	private static java.util.Set<String> difference(java.util.Set<String> after, java.util.Set<String> before) {
		java.util.Set<String> added = new java.util.HashSet<>(after);
		added.removeAll(before);
		return added;
	}

	static String sha256(String key) {
		try {
			return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
				.digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> toolNames(McpSession session) {
		JsonNode listed = RawHttp.json(session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").body());
		List<String> names = new ArrayList<>();
		listed.path("result").path("tools").forEach(tool -> names.add(tool.path("name").asText()));
		return names;
	}

}
