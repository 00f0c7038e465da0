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

import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;

/**
 * Tool search's listings of a server are bounded by the one mechanism the policies' are ({@link ServerListings}; cold
 * review B, finding 3: ten searches of one key, each with a fresh {@code X-Tenant} the server is configured to get,
 * made ten listings of the whole catalogue at once): one caller varying its view has at most
 * {@value ServerListings#MAX_PER_CALLER} listings of the server in flight, the rest refused at once, and another
 * caller's listing still runs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ToolSearchListingBoundTest {

	static final PolicyTestServer SERVER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		List<String> callers = List.of("alice", "bob");
		for (int i = 0; i < callers.size(); i++) {
			String caller = callers.get(i);
			registry.add("mcp-relay.security.api-keys[" + i + "].client", () -> caller);
			registry.add("mcp-relay.security.api-keys[" + i + "].key-sha256", () -> dev.mcprelay.Sha256.hex(key(caller)));
			registry.add("mcp-relay.security.api-keys[" + i + "].servers[0]", () -> "*");
		}
		registry.add("mcp-relay.servers.tss.url", () -> SERVER.url("/slow/mcp"));
		registry.add("mcp-relay.servers.tss.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.tss.headers[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.servers.tss.tool-search.enabled", () -> "true");
	}

	@AfterAll
	static void stop() {
		SERVER.close();
	}

	@Test
	void oneCallerVaryingItsViewListsTwiceAtMostAndAnotherStillLists() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(6);
		try {
			SERVER.holdLists();
			List<McpSession> bobs = new ArrayList<>();
			for (int view = 0; view < 4; view++) {
				bobs.add(McpSession.open(new RawHttp(port, "X-Api-Key", key("bob"), "X-Tenant", "bob-" + view), "tss"));
			}
			McpSession alice = McpSession.open(new RawHttp(port, "X-Api-Key", key("alice"), "X-Tenant", "alice"),
					"tss");
			SERVER.clear();
			List<CompletableFuture<HttpResponse<String>>> searches = new ArrayList<>();
			for (McpSession bob : bobs) {
				searches.add(CompletableFuture.supplyAsync(() -> bob.post(search()), clients));
			}
			// two of bob's views list (held by the server); the other two are refused without a listing
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
			assertThat(SERVER.count("tools/list")).as("listings upstream: bob's two, alice's one").isEqualTo(3);
		}
		finally {
			SERVER.releaseLists();
			clients.shutdownNow();
		}
	}

	/** Waits until the server got {@code listings} tools/list requests (held there), at most 30 s. */
	private static void awaitListings(long listings) {
		org.awaitility.Awaitility.await()
			.atMost(java.time.Duration.ofSeconds(30))
			.until(() -> SERVER.count("tools/list") >= listings);
		assertThat(SERVER.count("tools/list")).as("tools/list requests upstream").isEqualTo(listings);
	}

	private static String search() {
		return "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"search_available_tools\",\"arguments\":{\"query\":\"file\"}}}";
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		return messages.get(messages.size() - 1);
	}

	private static String key(String caller) {
		return caller + "-key-5d7f9b1c3e5a7c9e1b3d";
	}

}
