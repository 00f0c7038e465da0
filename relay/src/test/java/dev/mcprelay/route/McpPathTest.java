package dev.mcprelay.route;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.mcprelay.route.McpPath.Form;

/**
 * The one reading of a request path: the plain forms name a server (its id decoded once), what only a lenient router
 * would read as an MCP path is ambiguous, and everything else is another path.
 */
class McpPathTest {

	@ParameterizedTest(name = "{0} is {1} {2}")
	@CsvSource({
			"/mcp, DEFAULT, ",
			"/mcp/acme, MCP_FIRST, acme",
			"/acme/mcp, MCP_LAST, acme",
			"/mcp/%61cme, MCP_FIRST, acme",
			"/mcp/%6fther, MCP_FIRST, other",
			"/%61%63%6D%65/mcp, MCP_LAST, acme",
			"/mcp/mcp, MCP_FIRST, mcp",
			"/mcp/a.b~c_d-e, MCP_FIRST, a.b~c_d-e",
			"/mcp/%25, AMBIGUOUS, ",
			"/mcp/%2561cme, AMBIGUOUS, " })
	void plainFormsNameTheirServerDecodedOnce(String path, Form form, String segment) {
		McpPath parsed = McpPath.parse(path);
		assertThat(parsed.form()).as(path).isEqualTo(form);
		assertThat(parsed.segment()).as(path).isEqualTo(segment);
	}

	@ParameterizedTest(name = "{0} is ambiguous")
	@ValueSource(strings = { "/%6dcp/other", "/%6Dcp/other", "/other/m%63p", "/other/%6d%63%70", "/%6dcp", "/%256dcp/other",
			"/mcp/", "/mcp/other/", "/other/mcp/", "//mcp/other", "/mcp//other", "/other//mcp", "/mcp/./other",
			"/./mcp/other", "/x/../mcp/other", "/mcp/x/../other", "/mcp/%2e/other", "/mcp/%2E%2E/mcp", "/mcp;x=1/other",
			"/mcp/other;x=1", "/other;v=2/mcp", "/mcp\\other", "/mcp%5cother", "/mcp%5Cother", "/mcp%2fother",
			"/mcp/ot%2Fher", "/ot%2fher/mcp", "/mcp/other%00", "/mcp%00/other", "/mcp/.", "/mcp/..", "/mcp/%2e",
			"/mcp/%zz", "/mcp/%c3", "/mcp/a%0ab", "/mcp/%3bx", "/mcp/..%2fother" })
	void whatOnlyALenientRouterReadsAsAnMcpPathIsAmbiguous(String path) {
		McpPath parsed = McpPath.parse(path);
		assertThat(parsed.form()).as(path).isEqualTo(Form.AMBIGUOUS);
		assertThat(parsed.problem()).isNotBlank();
	}

	@ParameterizedTest(name = "{0} is another path")
	@ValueSource(strings = { "/", "/actuator/prometheus", "/MCP/other", "/Mcp/other", "/other/MCP", "/mcp/a/b",
			"/a/b/mcp", "/mcpx/other", "/other/mcpx", "/.well-known/oauth-protected-resource/mcp/acme",
			"/.well-known/oauth-protected-resource/mcp", "/mc%70x/other" })
	void otherPathsAreNotTheEndpoints(String path) {
		assertThat(McpPath.parse(path).form()).as(path).isEqualTo(Form.OTHER);
	}

}
