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

	@Test
	void anotherCallerCannotUseAVirtualSession() {
		McpSession alice = McpSession.open(new RawHttp(port, "X-Api-Key", ALICE_KEY), "all");
		RawHttp bob = new RawHttp(port, "X-Api-Key", BOB_KEY);

		HttpResponse<String> post = bob.send(bob.post("all", RawHttp.toolsCall(9, "alpha_echo"))
			.header("Mcp-Session-Id", alice.id()));
		HttpResponse<String> delete = bob.send(bob.request("all").DELETE().header("Mcp-Session-Id", alice.id()));

		assertThat(post.statusCode()).isEqualTo(404);
		assertThat(delete.statusCode()).isEqualTo(404);
		assertThat(alice.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}").statusCode()).isEqualTo(200);
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
