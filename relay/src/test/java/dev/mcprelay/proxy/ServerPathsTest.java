package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;

/**
 * Every configured server answers at {@code /{server}/mcp} as at {@code /mcp/{server}}: clients such as MCP
 * Inspector's CLI rewrite any URL that does not end in {@code /mcp}. With several servers and no
 * {@code default-server}, {@code /mcp} itself says how to pick one (see {@link DefaultServerTest} for the rest).
 */
class ServerPathsTest extends RelayIntegrationTest {

	@Test
	void aServerAnswersAtServerSlashMcpAsAtMcpSlashServer() {
		HttpResponse<String> classic = http().send(http().post("sdk-json", McpSession.initialize(1)));
		HttpResponse<String> suffixed = http().send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/sdk-json/mcp"))
			.header("Content-Type", "application/json")
			.header("Accept", RawHttp.ACCEPT_BOTH)
			.POST(HttpRequest.BodyPublishers.ofString(McpSession.initialize(1))));

		assertThat(suffixed.statusCode()).isEqualTo(200);
		assertThat(RawHttp.json(suffixed.body()).at("/result/serverInfo"))
			.isEqualTo(RawHttp.json(classic.body()).at("/result/serverInfo"));
	}

}
