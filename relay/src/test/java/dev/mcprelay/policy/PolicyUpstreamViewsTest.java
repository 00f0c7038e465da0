package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import reactor.core.publisher.Mono;

import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.UserRequestInterceptor;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * An upstream can publish other tool definitions to each caller (the headers the relay sends it per caller, from a
 * claim or from a header of the request), so a rule that reads a tool's annotations decides a call only from a
 * definition published to the same view of the upstream: tenant {@code evil}, to whom the scripted server says
 * {@code delete_file} is read-only, lists its tools, and tenant {@code good}'s call of {@code delete_file} is still
 * decided from what the server tells {@code good} (destructive: refused), never from what it told {@code evil}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PolicyUpstreamViewsTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	static final String GOOD_KEY = "good-key-1b3d5f7a9c2e4a6c8e0a";

	static final String EVIL_KEY = "evil-key-9c7a5e3c1a8e6c4a2e0c";

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry meters;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "good");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> dev.mcprelay.Sha256.hex(GOOD_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "evil");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> dev.mcprelay.Sha256.hex(EVIL_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.servers.by-claim.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.servers.by-claim.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.by-claim.headers[0].from-caller-claim", () -> "sub");
		registry.add("mcp-relay.servers.by-claim.headers[0].required", () -> "true");
		registry.add("mcp-relay.servers.by-header.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.servers.by-header.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.by-header.headers[0].from-request-header", () -> "X-Client-Tenant");
		registry.add("mcp-relay.virtual-servers.tenants.members[0]", () -> "by-header");
		registry.add("mcp-relay.virtual-servers.tenants.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.searching.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.servers.searching.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.searching.headers[0].from-caller-claim", () -> "sub");
		registry.add("mcp-relay.servers.searching.headers[0].required", () -> "true");
		registry.add("mcp-relay.servers.searching.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.slow.url", () -> SERVER.url("/slow/mcp"));
		registry.add("mcp-relay.servers.nolist.url", () -> SERVER.url("/nolist/mcp"));
		registry.add("mcp-relay.servers.endless.url", () -> SERVER.url("/endless/mcp"));
		registry.add("mcp-relay.servers.endless-search.url", () -> SERVER.url("/endless/mcp"));
		registry.add("mcp-relay.servers.endless-search.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.by-interceptor.url", () -> SERVER.url("/mcp"));
		registry.add("mcp-relay.policies[0].name", () -> "read-only");
		registry.add("mcp-relay.policies[0].servers[0]", () -> "*");
		registry.add("mcp-relay.policies[0].deny",
				() -> "mcp.method == \"tools/call\" && !mcp.tool.annotations.?readOnlyHint.orValue(false)");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@BeforeEach
	void clear() {
		SERVER.clear();
	}

	@Test
	void oneCallersListNeverDecidesAnotherCallersCall() {
		assertThat(listed(EVIL_KEY, "by-claim", null)).as("evil is told delete_file is read-only").contains("delete_file");
		assertThat(listed(GOOD_KEY, "by-claim", null)).as("good is told otherwise").doesNotContain("delete_file");
		assertThat(listed(EVIL_KEY, "by-claim", null)).as("evil lists last").contains("delete_file");

		JsonNode refused = call(GOOD_KEY, "by-claim", null, "delete_file");
		assertThat(refused.at("/error/message").asText()).as(refused.toString()).isEqualTo("Unknown tool: delete_file");
		assertThat(call(EVIL_KEY, "by-claim", null, "delete_file").has("result")).as("evil's own call").isTrue();
		assertThat(callsSeen()).as("what reached the server: the tenant of each call of delete_file")
			.containsExactly("evil");
	}

	@Test
	void aCallIsDecidedFromTheViewItsOwnHeadersOpen() {
		assertThat(listed(GOOD_KEY, "by-header", "evil")).as("listed with the header of tenant evil")
			.contains("delete_file");

		JsonNode refused = call(GOOD_KEY, "by-header", "good", "delete_file");
		assertThat(refused.at("/error/message").asText()).as("a call with tenant good's header: %s", refused)
			.isEqualTo("Unknown tool: delete_file");
		assertThat(callsSeen()).isEmpty();
	}

	/**
	 * Tool search keeps each view's catalogue apart: evil's search finds delete_file (read-only to evil), good's does
	 * not (destructive to good), a list of good's with a cursor (answered from the catalogue) does not show it, and
	 * good's call of it never reaches the server, however good's session was filled.
	 */
	@Test
	void toolSearchShowsACallerOnlyItsOwnViewsCatalogue() {
		McpSession evil = McpSession.open(http(EVIL_KEY, null), "searching");
		assertThat(search(evil, "delete file")).as("evil's search").contains("delete_file");

		McpSession good = McpSession.open(http(GOOD_KEY, null), "searching");
		assertThat(search(good, "delete file")).as("good's search").doesNotContain("delete_file");
		JsonNode paged = RawHttp.messagesOf(good.post(
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"0\"}}")).get(0);
		assertThat(paged.at("/result/tools").findValuesAsText("name")).as("good's list with a cursor: %s", paged)
			.doesNotContain("delete_file");
		List<JsonNode> called = RawHttp.messagesOf(good.post(RawHttp.toolsCall(4, "delete_file")));
		assertThat(called.get(called.size() - 1).has("error")).as("good's call: %s", called).isTrue();
		assertThat(callsSeen()).as("what reached the server: the tenant of each call of delete_file").isEmpty();
	}

	/**
	 * A list_changed that comes while the relay lists a view's catalogue for a call leaves that listing unkept: the
	 * call that waited for it is decided from it (delete_file read-only then), and the next call lists again and is
	 * decided from the catalogue after the change (delete_file destructive: refused, never reaching the server).
	 */
	@Test
	void aListingThatBeganBeforeAListChangedIsNeverKept() throws Exception {
		SERVER.deleteReadOnly(true);
		CompletableFuture<Void> listing = SERVER.holdLists();
		McpSession session = McpSession.open(http(GOOD_KEY, null), "slow");
		CompletableFuture<HttpResponse<String>> first = CompletableFuture
			.supplyAsync(() -> session.post(RawHttp.toolsCall(2, "delete_file")));
		listing.get(30, TimeUnit.SECONDS);
		SERVER.deleteReadOnly(false);
		List<JsonNode> pinged = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}"));
		assertThat(pinged).as("the server's list_changed, then the ping's answer").hasSize(2);
		SERVER.releaseLists();
		List<JsonNode> waited = RawHttp.messagesOf(first.get(30, TimeUnit.SECONDS));
		assertThat(waited.get(waited.size() - 1).has("result")).as("decided from the listing it waited for: %s", waited)
			.isTrue();

		List<JsonNode> after = RawHttp.messagesOf(session.post(RawHttp.toolsCall(3, "delete_file")));
		assertThat(after.get(after.size() - 1).at("/error/message").asText()).as("after the change: %s", after)
			.isEqualTo("Unknown tool: delete_file");
		assertThat(SERVER.count("tools/list")).as("listed again after the change").isEqualTo(2);
		assertThat(SERVER.count("tools/call")).as("only the call decided before the change reached the server")
			.isEqualTo(1);
	}

	/**
	 * An interceptor that tells the upstream the user (X-User as X-Tenant, as docs/interceptors.md shows) makes the
	 * upstream's view as a configured header does: one key's list with X-User evil never decides its call with X-User
	 * good.
	 */
	@Test
	void aHeaderAnInterceptorSetsUpstreamIsPartOfTheView() {
		McpSession good = McpSession.open(new RawHttp(port, "X-Api-Key", GOOD_KEY, "X-User", "good"), "by-interceptor");
		McpSession evil = McpSession.open(new RawHttp(port, "X-Api-Key", GOOD_KEY, "X-User", "evil"), "by-interceptor");
		String list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
		assertThat(RawHttp.messagesOf(good.post(list)).get(0).at("/result/tools").findValuesAsText("name"))
			.as("good is told delete_file is destructive").doesNotContain("delete_file");
		assertThat(RawHttp.messagesOf(evil.post(list)).get(0).at("/result/tools").findValuesAsText("name"))
			.as("evil is told it is read-only").contains("delete_file");

		List<JsonNode> called = RawHttp.messagesOf(good.post(RawHttp.toolsCall(2, "delete_file")));
		assertThat(called.get(called.size() - 1).at("/error/message").asText()).as("good's call: %s", called)
			.isEqualTo("Unknown tool: delete_file");
		assertThat(callsSeen()).isEmpty();
	}

	/** A plugin's interceptor: the upstream learns the user from a header an SSO proxy sets (X-User to X-Tenant). */
	@TestConfiguration
	static class UpstreamUser {

		@Bean
		UserRequestInterceptor upstreamUser() {
			return new UserRequestInterceptor() {

				@Override
				public String name() {
					return "upstream-user";
				}

				@Override
				public boolean appliesTo(String server) {
					return server.equals("by-interceptor");
				}

				@Override
				public Mono<Outcome> interceptUserRequest(ClientMessage message) {
					String user = message.context().headers().getFirst("X-User");
					if (user != null) {
						message.context().upstreamHeaders().set("X-Tenant", user);
					}
					return Outcome.proceed();
				}

			};
		}

	}

	/**
	 * When the relay cannot list the catalogue a rule that reads the tool needs, a call is refused as what it is (the
	 * policy cannot be decided: fails closed), never as a name that does not exist, and counted as the rule's error.
	 */
	@Test
	void aCallThePoliciesCannotDecideForWantOfTheListIsRefusedAsSuch() {
		McpSession session = McpSession.open(http(GOOD_KEY, null), "nolist");
		int mark = dev.mcprelay.testsupport.CapturedLogs.all().size();
		List<JsonNode> called = RawHttp.messagesOf(session.post(RawHttp.toolsCall(2, "read_file")));
		JsonNode answer = called.get(called.size() - 1);
		assertThat(answer.at("/error/data/reason").asText()).as(answer.toString()).isEqualTo("policy_undecidable");
		assertThat(answer.at("/error/message").asText()).doesNotContain("Unknown tool")
			.as("the client is told the server's catalogue is unavailable, not that a policy reads it")
			.doesNotContainIgnoringCase("polic")
			.contains("tools/list of server 'nolist'");
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(dev.mcprelay.testsupport.CapturedLogs.since(mark))
				.as("the access log names the policy the list was needed for")
				.anyMatch(line -> line.startsWith("INFO mcp.relay.access server=nolist ")
						&& line.contains(" reason=policy_undecidable ") && line.contains(" rule=read-only ")));
		assertThat(SERVER.count("tools/call")).as("nothing went upstream").isZero();
		assertThat(meters.find(PolicyMeters.DECISIONS).tag("policy", "read-only").tag("server", "nolist")
			.tag("outcome", "error").counter().count()).isEqualTo(1);
	}

	/**
	 * A tool list longer than the relay reads (100 pages) is cut there, and a name it does not reach is not answered
	 * as one the server did not publish: the policies cannot decide it. A name within the cut is decided, and the cut
	 * list is not listed again for each name.
	 */
	@Test
	void aNamePastTheListingsCutIsNotUnknownButUndecidable() {
		McpSession session = McpSession.open(http(GOOD_KEY, null), "endless");
		List<JsonNode> past = RawHttp.messagesOf(session.post(RawHttp.toolsCall(2, "tool_500")));
		JsonNode answer = past.get(past.size() - 1);
		assertThat(answer.at("/error/data/reason").asText()).as(answer.toString()).isEqualTo("policy_undecidable");
		assertThat(answer.at("/error/message").asText()).contains("longer than the relay reads");
		assertThat(SERVER.count("tools/list")).as("one listing, cut at 100 pages").isEqualTo(100);
		List<JsonNode> within = RawHttp.messagesOf(session.post(RawHttp.toolsCall(3, "tool_7")));
		assertThat(SERVER.count("tools/call")).as("within the cut, decided and sent: %s", within).isEqualTo(1);
		assertThat(SERVER.count("tools/list")).as("not listed again").isEqualTo(100);
	}

	/**
	 * A virtual server keeps what its members list per view of each member, as the pass-through path does: one caller
	 * whose two requests carry two values of the member's {@code from-request-header} gets two lists, never the page
	 * (nor the merged catalogue) the other value got. Tenant evil's search through the virtual server finds
	 * delete_file (read-only to evil), then the same caller's as tenant good does not.
	 */
	@Test
	void aVirtualServerKeepsEachMembersListPerViewNotPerCaller() {
		McpSession asEvil = McpSession.open(http(GOOD_KEY, "evil"), "tenants");
		assertThat(search(asEvil, "delete file")).as("as tenant evil").contains("by-header_delete_file");

		McpSession asGood = McpSession.open(http(GOOD_KEY, "good"), "tenants");
		assertThat(search(asGood, "delete file")).as("the same caller as tenant good")
			.doesNotContain("by-header_delete_file");
		List<JsonNode> called = RawHttp.messagesOf(asGood.post(RawHttp.toolsCall(4, "by-header_delete_file")));
		assertThat(called.get(called.size() - 1).has("error")).as("good's call: %s", called).isTrue();
		assertThat(callsSeen()).as("what reached the server: the tenant of each call of delete_file").isEmpty();
	}

	/**
	 * Tool search's own listing is bounded as the policies' listings are (100 pages) and a cut one is no catalogue: a
	 * search of a server whose tool list never ends is refused as undecidable, after one listing of 100 pages.
	 */
	@Test
	void toolSearchOfACatalogueLongerThanTheRelayReadsIsUndecidable() {
		McpSession session = McpSession.open(http(GOOD_KEY, null), "endless-search");
		List<JsonNode> searched = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\"tool\"}}}"));
		JsonNode answer = searched.get(searched.size() - 1);

		assertThat(answer.at("/error/data/reason").asText()).as(answer.toString()).isEqualTo("policy_undecidable");
		assertThat(answer.at("/error/message").asText()).contains("longer than the relay reads");
		assertThat(SERVER.count("tools/list")).as("one listing, cut at 100 pages").isEqualTo(100);
	}

	/** The names of the tools a search in {@code session} found. */
	private static List<String> search(McpSession session, String query) {
		List<JsonNode> messages = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"search_available_tools\",\"arguments\":{\"query\":\""
				+ query + "\"}}}"));
		JsonNode result = messages.get(messages.size() - 1);
		assertThat(result.has("result")).as(result.toString()).isTrue();
		return result.at("/result/structuredContent/tools").findValuesAsText("name");
	}

	/** The tenant of each call of delete_file the server got. */
	private List<String> callsSeen() {
		return SERVER.seen().stream().filter(seen -> seen.body().contains("\"tools/call\""))
			.filter(seen -> seen.body().contains("delete_file"))
			.map(seen -> seen.headers().getFirst("X-Tenant"))
			.toList();
	}

	private List<String> listed(String key, String server, String tenantHeader) {
		McpSession session = McpSession.open(http(key, tenantHeader), server);
		JsonNode answer = RawHttp.messagesOf(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"))
			.get(0);
		return answer.at("/result/tools").findValuesAsText("name");
	}

	private JsonNode call(String key, String server, String tenantHeader, String tool) {
		RawHttp http = http(key, tenantHeader);
		McpSession session = McpSession.open(http, server);
		HttpResponse<String> response = session.post(RawHttp.toolsCall(2, tool));
		List<JsonNode> messages = RawHttp.messagesOf(response);
		assertThat(messages).as(response.statusCode() + " " + response.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private RawHttp http(String key, String tenantHeader) {
		return tenantHeader == null ? new RawHttp(port, "X-Api-Key", key)
				: new RawHttp(port, "X-Api-Key", key, "X-Client-Tenant", tenantHeader);
	}

}
