package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RawSocketHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * Review 44f's N1: a POST the front door admitted on its headers, whose body completes only after a reload withdrew
 * its caller's access, is refused (403, reason {@code access_withdrawn}) and nothing of it reaches the upstream: its
 * key removed (a pass-through server), or its key's {@code servers} narrowed off the member a virtual server's call
 * goes to. Before the mend the call was forwarded and run when its last bytes came.
 */
class BodyAfterRevocationReloadTest {

	private static final String ALICE = "alice-key-for-late-bodies";

	private static final String BOB = "bob-key-for-late-bodies";

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture
		.startingOn(() -> config(key("alice", ALICE, "[alpha, beta]") + key("bob", BOB, "[alpha]")))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aPassThroughCallWhoseBodyEndsAfterItsKeyWasRemovedIsRefusedAndNeverForwarded() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "alpha");
		try (Socket client = headersAndFirstByte("alpha", session.id(), 11, "echo")) {
			upstream.clearSeen();

			live.reload(config(key("bob", BOB, "[alpha]")), ReloadOutcome.APPLIED);

			assertRefused(rest(client), 11);
		}
		assertThat(upstream.seen()).as("the upstream got nothing of the call")
			.noneMatch(seen -> seen.body() != null && seen.body().contains("tools/call"));
	}

	@Test
	void aVirtualServersCallWhoseBodyEndsAfterItsKeyLostTheMemberIsRefusedAndNeverForwarded() throws Exception {
		McpSession session = McpSession.open(live.http("X-Api-Key", ALICE), "duo");
		try (Socket client = headersAndFirstByte("duo", session.id(), 12, "alpha_echo")) {
			upstream.clearSeen();

			live.reload(config(key("alice", ALICE, "[beta]") + key("bob", BOB, "[alpha]")),
					ReloadOutcome.APPLIED);

			assertRefused(rest(client), 12);
		}
		assertThat(upstream.seen()).as("the member got nothing of the call")
			.noneMatch(seen -> seen.body() != null && seen.body().contains("tools/call"));
	}

	/** The body of a tools/call of {@code tool}, padded with a leading space: the only byte sent before the reload. */
	private static String body(int id, String tool) {
		return " {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"message\":\"late\"}}}";
	}

	private static String pending;

	/** Sends a tools/call's headers and the first byte of its body (a space), alice's key presented. */
	private static Socket headersAndFirstByte(String server, String sessionId, int id, String tool) throws Exception {
		int port = TwoRelaysOverRedis.port(live.relay().context());
		String body = body(id, tool);
		byte[] content = body.getBytes(StandardCharsets.UTF_8);
		String head = "POST /mcp/" + server + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Api-Key: " + ALICE
				+ "\r\nContent-Type: application/json\r\nAccept: " + RawHttp.ACCEPT_BOTH + "\r\nMCP-Protocol-Version: "
				+ McpSession.PROTOCOL_VERSION + "\r\nMcp-Session-Id: " + sessionId + "\r\nContent-Length: "
				+ content.length + "\r\nConnection: close\r\n\r\n";
		Socket client = new Socket();
		client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
		client.setSoTimeout(60_000);
		OutputStream out = client.getOutputStream();
		out.write(head.getBytes(StandardCharsets.ISO_8859_1));
		out.write(content, 0, 1);
		out.flush();
		pending = body.substring(1);
		return client;
	}

	/** Sends the rest of the body (the tool's name and arguments) and reads the answer. */
	private static RawSocketHttp.Response rest(Socket client) throws Exception {
		client.getOutputStream().write(pending.getBytes(StandardCharsets.UTF_8));
		client.getOutputStream().flush();
		return RawSocketHttp.read(client.getInputStream());
	}

	private static void assertRefused(RawSocketHttp.Response answer, int id) throws Exception {
		assertThat(answer.status()).as("the late call: %s", answer.body()).isEqualTo(403);
		JsonNode error = new ObjectMapper().readTree(answer.body());
		assertThat(error.path("id").asInt()).isEqualTo(id);
		assertThat(error.at("/error/data/reason").asText()).isEqualTo("access_withdrawn");
	}

	private static String key(String client, String key, String servers) {
		return ApiKeysReloadTest.key(client, Sha256.hex(key), servers);
	}

	static String config(String keys) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: api-key\n    api-keys:\n"
				+ keys + "  servers:\n    alpha:\n      url: " + upstream.url("/mcp") + "\n    beta:\n      url: "
				+ upstream.url("/mcp") + "\n  virtual-servers:\n    duo:\n      members: [alpha, beta]\n";
	}

}
