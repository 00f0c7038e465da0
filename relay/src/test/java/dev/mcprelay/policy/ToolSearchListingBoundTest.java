package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.ApiKeyCallers;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Tool search's listings of a server are bounded by the one mechanism the policies' are ({@link ServerListings}; cold
 * review B, finding 3: ten searches of one key, each with a fresh {@code X-Tenant} the server is configured to get,
 * made ten listings of the whole catalogue at once): one caller varying its view has at most
 * {@value ServerListings#MAX_PER_CALLER} listings of the server in flight, {@value ServerListings#MAX_WAITING_PER_CALLER}
 * more waiting for its own turn (review 43l L-3), the rest refused at once, and another caller's listing still runs. So are a virtual server's searches over its members (cold review D, finding 1: eight
 * searches of one view made eight listings, and a member paging without end was read for a thousand pages and then
 * searched as if whole): one listing per view of a member, the member's listings bounded, a list longer than the
 * relay reads refused as {@code policy_undecidable} after {@link dev.mcprelay.proxy.UpstreamLister#MAX_PAGES} pages.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ToolSearchListingBoundTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	/** The member of virtual server {@code vts} (each server holds its lists once: one test each). */
	static final PolicyTestServer MEMBER = new PolicyTestServer();

	/** The member of virtual server {@code vinf}, whose tool list never ends. */
	static final PolicyTestServer ENDLESS = new PolicyTestServer();

	/** Bob's views at once: his two listings, his waiting ones, and two more, refused at once. */
	static final int BOBS = ServerListings.MAX_PER_CALLER + ServerListings.MAX_WAITING_PER_CALLER + 2;

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ApiKeyCallers.register(registry, "alice", "bob");
		registry.add("mcp-relay.servers.tss.url", () -> SERVER.url("/slow/mcp"));
		registry.add("mcp-relay.servers.tss.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.tss.headers[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.servers.tss.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.vm.url", () -> MEMBER.url("/slow/mcp"));
		registry.add("mcp-relay.servers.vm.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.vm.headers[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.virtual-servers.vts.members[0]", () -> "vm");
		registry.add("mcp-relay.virtual-servers.vts.tool-search.enabled", () -> "true");
		registry.add("mcp-relay.servers.inf.url", () -> ENDLESS.url("/endless/mcp"));
		registry.add("mcp-relay.virtual-servers.vinf.members[0]", () -> "inf");
		registry.add("mcp-relay.virtual-servers.vinf.tool-search.enabled", () -> "true");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
		MEMBER.close();
		ENDLESS.close();
	}

	@Test
	void aVirtualServersSearchesListEachViewOfAMemberOnceWithinTheMembersBound() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(BOBS + 8);
		try {
			MEMBER.holdLists();
			List<McpSession> bobs = new ArrayList<>();
			for (int view = 0; view < BOBS; view++) {
				bobs.add(McpSession.open(ApiKeyCallers.http(port, "bob", "X-Tenant", "bob-" + view), "vts"));
			}
			List<McpSession> alices = new ArrayList<>();
			for (int session = 0; session < 8; session++) {
				alices.add(McpSession.open(ApiKeyCallers.http(port, "alice", "X-Tenant", "alice"), "vts"));
			}
			MEMBER.clear();
			List<CompletableFuture<HttpResponse<String>>> bobsSearches = new ArrayList<>();
			for (McpSession bob : bobs) {
				bobsSearches.add(CompletableFuture.supplyAsync(() -> bob.post(search()), clients));
			}
			// two of bob's views list (held by the member), six wait for his turn; the other two are refused without a
			// listing
			while (bobsSearches.stream().filter(CompletableFuture::isDone).count() < 2) {
				CompletableFuture.anyOf(bobsSearches.stream().filter(search -> !search.isDone())
					.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			}
			for (CompletableFuture<HttpResponse<String>> search : bobsSearches) {
				if (search.isDone()) {
					JsonNode answer = last(search.get());
					assertThat(answer.at("/error/data/reason").asText()).as(answer.toString())
						.isEqualTo("listing_refused");
				}
			}
			awaitListings(MEMBER, 2);

			// eight sessions of one view: one listing, which every search of the view waits for
			List<CompletableFuture<HttpResponse<String>>> alicesSearches = new ArrayList<>();
			for (McpSession alice : alices) {
				alicesSearches.add(CompletableFuture.supplyAsync(() -> alice.post(search()), clients));
			}
			awaitListings(MEMBER, 3);
			MEMBER.releaseLists();
			for (CompletableFuture<HttpResponse<String>> search : alicesSearches) {
				JsonNode answer = last(search.get(30, TimeUnit.SECONDS));
				assertThat(answer.at("/result/structuredContent/tools").findValuesAsText("name")).as(answer.toString())
					.contains("vm_read_file");
			}
			for (CompletableFuture<HttpResponse<String>> search : bobsSearches) {
				search.get(30, TimeUnit.SECONDS);
			}
			assertThat(bobsSearches.stream().filter(search -> last(search.join()).has("result")).count())
				.as("bob's searches that waited for his turn").isEqualTo(BOBS - 2);
			assertThat(MEMBER.count("tools/list")).as("listings of the member: bob's eight, alice's one")
				.isEqualTo(BOBS - 2 + 1);
		}
		finally {
			MEMBER.releaseLists();
			clients.shutdownNow();
		}
	}

	@Test
	void aMembersListLongerThanTheRelayReadsIsRefusedNotSearchedAsWhole() {
		McpSession alice = McpSession.open(ApiKeyCallers.http(port, "alice"), "vinf");
		ENDLESS.clear();
		JsonNode answer = last(alice.post(search()));
		assertThat(answer.at("/error/data/reason").asText()).as(answer.toString()).isEqualTo("policy_undecidable");
		assertThat(answer.at("/error/message").asText()).contains("'inf'");
		assertThat(ENDLESS.count("tools/list")).as("pages read of the member's list")
			.isEqualTo(dev.mcprelay.proxy.UpstreamLister.MAX_PAGES);
	}

	@Test
	void oneCallerVaryingItsViewListsTwiceAtMostAndAnotherStillLists() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(BOBS + 2);
		try {
			SERVER.holdLists();
			List<McpSession> bobs = new ArrayList<>();
			for (int view = 0; view < BOBS; view++) {
				bobs.add(McpSession.open(ApiKeyCallers.http(port, "bob", "X-Tenant", "bob-" + view), "tss"));
			}
			McpSession alice = McpSession.open(ApiKeyCallers.http(port, "alice", "X-Tenant", "alice"),
					"tss");
			SERVER.clear();
			List<CompletableFuture<HttpResponse<String>>> searches = new ArrayList<>();
			for (McpSession bob : bobs) {
				searches.add(CompletableFuture.supplyAsync(() -> bob.post(search()), clients));
			}
			// two of bob's views list (held by the server), six wait for his turn; the other two are refused without a
			// listing
			while (searches.stream().filter(CompletableFuture::isDone).count() < 2) {
				CompletableFuture.anyOf(searches.stream().filter(search -> !search.isDone())
					.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			}
			List<JsonNode> refused = new ArrayList<>();
			for (CompletableFuture<HttpResponse<String>> search : searches) {
				if (search.isDone()) {
					refused.add(last(search.get()));
				}
			}
			assertThat(refused).allSatisfy(answer -> assertThat(answer.at("/error/data/reason").asText())
				.as(answer.toString()).isEqualTo("listing_refused"));
			awaitListings(2);
			assertThat(searches.stream().filter(CompletableFuture::isDone).count()).as("bob's answered").isEqualTo(2);

			CompletableFuture<HttpResponse<String>> alices = CompletableFuture.supplyAsync(() -> alice.post(search()),
					clients);
			awaitListings(3);
			SERVER.releaseLists();
			assertThat(last(alices.get(30, TimeUnit.SECONDS)).has("result")).as("alice's search").isTrue();
			for (CompletableFuture<HttpResponse<String>> search : searches) {
				search.get(30, TimeUnit.SECONDS);
			}
			assertThat(searches.stream().filter(search -> last(search.join()).has("result")).count())
				.as("bob's searches that waited for his turn").isEqualTo(BOBS - 2);
			assertThat(SERVER.count("tools/list")).as("listings upstream: bob's eight, alice's one")
				.isEqualTo(BOBS - 2 + 1);
		}
		finally {
			SERVER.releaseLists();
			clients.shutdownNow();
		}
	}

	/** Waits until the server got {@code listings} tools/list requests (held there), at most 30 s. */
	private static void awaitListings(long listings) {
		awaitListings(SERVER, listings);
	}

	/** Waits until {@code server} got {@code listings} tools/list requests (held there), at most 30 s. */
	private static void awaitListings(PolicyTestServer server, long listings) {
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(30))
			.until(() -> server.count("tools/list") >= listings);
		assertThat(server.count("tools/list")).as("tools/list requests upstream").isEqualTo(listings);
	}

	private static String search() {
		return "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"search_available_tools\",\"arguments\":{\"query\":\"file\"}}}";
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		return messages.get(messages.size() - 1);
	}

}
