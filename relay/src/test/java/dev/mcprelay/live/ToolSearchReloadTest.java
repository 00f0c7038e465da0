package dev.mcprelay.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * A server's {@code tool-search} edited in the mounted file of a running relay in front of a real MCP server: a server
 * added with tool search is served with it from the next request (the search tool listed, a search finding the
 * server's tools); a change to its settings ({@code always-expose}) applies to the next session; a server that loses
 * it lists its whole catalogue again; an invalid edit is refused whole, the running settings serving.
 */
class ToolSearchReloadTest {

	static SdkMcpUpstream upstream;

	@RegisterExtension
	static final LiveReloadFixture live = LiveReloadFixture.startingOn(() -> config(""))
		.peer(() -> upstream = new SdkMcpUpstream());

	@Test
	void aServerAddedWithToolSearchIsServedWithItAndItsSettingsApplyToTheNextSession() throws Exception {
		live.reload(config(searching("[]")), ReloadOutcome.APPLIED);

		McpSession session = McpSession.open(live.http(), "searching");
		assertThat(toolNames(session)).containsExactly("search_available_tools");
		HttpResponse<String> found = session.post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"echo\"}}}");
		assertThat(RawHttp.messagesOf(found)).as(found.body()).last()
			.satisfies(answer -> assertThat(answer.at("/result/structuredContent/tools/0/name").asText())
				.isEqualTo("echo"));
		assertThat(toolNames(session)).contains("search_available_tools", "echo");

		live.reload(config(searching("[progress]")), ReloadOutcome.APPLIED);

		assertThat(toolNames(McpSession.open(live.http(), "searching"))).as("always-expose, changed")
			.containsExactly("search_available_tools", "progress");

		live.reload(config(searching("[progress]").replace("enabled: true",
				"enabled: false")), ReloadOutcome.APPLIED);

		assertThat(toolNames(McpSession.open(live.http(), "searching"))).as("tool search turned off")
			.contains("echo", "progress").doesNotContain("search_available_tools");
	}

	@Test
	void anInvalidToolSearchEditIsRefusedWholeAndTheRunningSettingsServe() throws Exception {
		live.reload(config(searching("[]")), ReloadOutcome.APPLIED);
		String running = live.relay().checksum();

		live.reload(config(searching("[progress]").replace("max-results: 3",
				"max-results: lots")), ReloadOutcome.REFUSED);

		assertThat(live.relay().checksum()).isEqualTo(running);
		assertThat(toolNames(McpSession.open(live.http(), "searching"))).containsExactly("search_available_tools");
	}

	private static List<String> toolNames(McpSession session) {
		HttpResponse<String> listed = session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		List<String> names = new ArrayList<>();
		for (JsonNode message : RawHttp.messagesOf(listed)) {
			message.at("/result/tools").forEach(tool -> names.add(tool.path("name").asText()));
		}
		assertThat(names).as(listed.body()).isNotEmpty();
		return names;
	}

	/** A server {@code searching} with tool search, {@code always-expose} {@code alwaysExpose}. */
	private static String searching(String alwaysExpose) {
		return "    searching:\n      url: " + upstream.url("/mcp") + "\n      tool-search:\n        enabled: true\n"
				+ "        max-results: 3\n        always-expose: " + alwaysExpose + "\n";
	}

	static String config(String servers) {
		return "server:\n  port: 0\n  address: 127.0.0.1\nmcp-relay:\n  security:\n    mode: none\n  servers:\n"
				+ "    alpha:\n      url: " + upstream.url("/mcp") + "\n" + servers;
	}

}
