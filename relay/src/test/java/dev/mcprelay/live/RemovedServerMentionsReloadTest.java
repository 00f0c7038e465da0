package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A server an API key's {@code servers} and a virtual server's explicit {@code members} name, removed by a reload of a
 * running relay in {@code api-key} mode in front of a real MCP server: removed alone, the reload is refused naming the
 * properties that still name it; removed with its mentions, it applies (the key no longer opens it, the virtual
 * server no longer has it); added again later under its id, the key, which no longer names it, does not open it.
 */
class RemovedServerMentionsReloadTest {

	private static final String KEY = "mentions-test-key";

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(List.of("alpha", "beta"),
			"[alpha, beta]", "[alpha, beta]", "      prefix: { beta: b_ }\n"))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aServerIsRemovedWithEveryMentionOfItAndNotAloneAndAddedAgainItIsNotOpenedByAKeyThatNoLongerNamesIt()
			throws Exception {
		assertThat(virtualTools()).contains("alpha_echo", "b_echo");
		int mark = CapturedLogs.all().size();

		live.reload(config(List.of("alpha"), "[alpha, beta]", "[alpha, beta]",
				"      prefix: { beta: b_ }\n"), ReloadOutcome.REFUSED);
		assertThat(CapturedLogs.since(mark)).as("the refusal names what still names the removed server")
			.anyMatch(line -> line.contains("mcp-relay.security.api-keys[0].servers[1]"))
			.anyMatch(line -> line.contains("mcp-relay.virtual-servers.pair.members[1]"));
		assertThat(status("beta")).as("nothing of it applied").isEqualTo(200);

		live.reload(config(List.of("alpha"), "[alpha]", "[alpha]", ""), ReloadOutcome.APPLIED);
		assertThat(status("beta")).as("the removed server, which the key no longer names").isEqualTo(403);
		assertThat(status("alpha")).isEqualTo(200);
		assertThat(virtualTools()).as("the virtual server no longer has it").contains("alpha_echo")
			.noneMatch(name -> name.startsWith("b_"));

		live.reload(config(List.of("alpha", "beta"), "[alpha]", "[alpha]", ""), ReloadOutcome.APPLIED);
		assertThat(status("beta")).as("added again: the key, which no longer names it, does not open it")
			.isEqualTo(403);
	}

	private static int status(String server) {
		RawHttp http = live.http("X-Api-Key", KEY);
		return http.send(http.post(server, McpSession.initialize(1))).statusCode();
	}

	/** The tools a new session of the virtual server {@code pair} lists. */
	private static List<String> virtualTools() {
		HttpResponse<String> listed = McpSession.open(live.http("X-Api-Key", KEY), "pair")
			.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
		List<String> names = new ArrayList<>();
		for (JsonNode message : RawHttp.messagesOf(listed)) {
			message.at("/result/tools").forEach(tool -> names.add(tool.path("name").asText()));
		}
		return names;
	}

	/** The servers, one key opening {@code keyServers} (and the virtual server), a virtual server of {@code members}. */
	static String config(List<String> servers, String keyServers, String members, String virtualSettings) {
		StringBuilder yaml = new StringBuilder("server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n"
				+ "    mode: api-key\n    api-keys:\n      - client: agent\n        key-sha256: " + Sha256.hex(KEY)
				+ "\n        servers: " + keyServers.replace("]", ", pair]") + "\n  servers:\n");
		for (String server : servers) {
			yaml.append("    ").append(server).append(":\n      url: ").append(upstream.url("/mcp")).append('\n');
		}
		return yaml.append("  virtual-servers:\n    pair:\n      members: ").append(members).append('\n')
			.append(virtualSettings).toString();
	}

}
