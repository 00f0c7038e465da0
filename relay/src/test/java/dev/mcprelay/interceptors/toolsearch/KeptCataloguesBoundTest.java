package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.ApiKeyCallers;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;

/**
 * Every catalogue tool search keeps is bounded by bytes, all together (cold review G, finding 1: a member of 2,000
 * tools behind a view taken from a request header, searched through a virtual server with 60 fresh {@code X-Tenant}
 * values, took the heap from 26 to 378 MB after GC, since each view's whole list was kept under a bound by count
 * only). A server of 200 tools of 10 KB each (2 MB of JSON a list), searched through a virtual server and directly
 * in twelve views each, keeps at most {@link KeptCatalogues#MAX_BYTES}, as the cache itself weighs it, and still keeps
 * what fits.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class KeptCataloguesBoundTest {

	static final SdkMcpUpstream UPSTREAM = new SdkMcpUpstream();

	static {
		UPSTREAM.addBulkTools(200, 10_000);
	}

	@LocalServerPort
	int port;

	@Autowired
	KeptCatalogues kept;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ApiKeyCallers.register(registry, "alice");
		for (String server : List.of("big", "member")) {
			registry.add("mcp-relay.servers." + server + ".url", () -> UPSTREAM.url("/mcp"));
			registry.add("mcp-relay.servers." + server + ".headers[0].name", () -> "X-Tenant");
			registry.add("mcp-relay.servers." + server + ".headers[0].from-request-header", () -> "X-Tenant");
		}
		registry.add("mcp-relay.servers.big.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.virtual-servers.vbig.members[0]", () -> "member");
		registry.add("mcp-relay.virtual-servers.vbig.tool-search.enabled", () -> "true");
	}

	@AfterAll
	static void stop() throws Exception {
		UPSTREAM.close();
	}

	@Test
	void aMembersLargeListInManyViewsIsKeptUnderTheBound() {
		searchInTwelveViews("vbig", "member_");
	}

	@Test
	void aServersLargeCatalogueInManyViewsIsKeptUnderTheBound() {
		searchInTwelveViews("big", "");
	}

	private void searchInTwelveViews(String server, String prefix) {
		long most = 0;
		for (int view = 0; view < 12; view++) {
			McpSession session = McpSession.open(ApiKeyCallers.http(port, "alice", "X-Tenant", server + "-" + view),
					server);
			List<JsonNode> messages = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
					+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":"
					+ "{\"query\":\"bulk tool\"}}}"));
			JsonNode result = messages.get(messages.size() - 1);
			assertThat(result.at("/result/structuredContent/tools").findValuesAsText("name")).as(result.toString())
				.isNotEmpty()
				.allMatch(name -> name.startsWith(prefix));
			long weight = kept.weight();
			assertThat(weight).as("kept after the search in view " + view).isLessThanOrEqualTo(KeptCatalogues.MAX_BYTES);
			most = Math.max(most, weight);
		}
		assertThat(most).as("what fits is kept: at least one view's 2 MB list").isGreaterThan(2_000_000);
	}

}
