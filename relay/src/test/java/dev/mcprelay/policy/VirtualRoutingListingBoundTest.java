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
 * A virtual server's routing by its members' lists (a {@code resources/read} goes to the member that lists the URI)
 * lists each member within the bound every listing of it shares ({@link ServerListings}; cold review G, finding 2:
 * one read with a fresh view header made 100 {@code resources/list} requests upstream, and twelve concurrent reads of
 * one caller ran twelve listings at once, outside the bound): one caller has at most
 * {@value ServerListings#MAX_PER_CALLER} listings of the member running, {@value ServerListings#MAX_WAITING_PER_CALLER}
 * more waiting for its own turn (review 43l L-3), one more is refused at once ({@code listing_refused}, never answered
 * as an unknown URI), another caller's still run, and the reads of one view wait for that view's one listing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualRoutingListingBoundTest {

	static final PolicyTestServer MEMBER = new PolicyTestServer();

	@LocalServerPort
	int port;

	@org.springframework.beans.factory.annotation.Autowired
	ServerListings listings;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		ApiKeyCallers.register(registry, "alice", "bob");
		registry.add("mcp-relay.servers.rm.url", () -> MEMBER.url("/slow/mcp"));
		registry.add("mcp-relay.servers.rm.headers[0].name", () -> "X-Tenant");
		registry.add("mcp-relay.servers.rm.headers[0].from-request-header", () -> "X-Tenant");
		registry.add("mcp-relay.virtual-servers.vr.members[0]", () -> "rm");
	}

	@AfterAll
	static void stop() {
		MEMBER.close();
	}

	@Test
	void readsRoutedByTheMembersListsListItWithinItsBound() throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(16);
		try {
			MEMBER.holdLists("resources/list", "resources/templates/list");
			List<McpSession> bobs = new ArrayList<>();
			for (int session = 0; session < 8; session++) {
				bobs.add(McpSession.open(ApiKeyCallers.http(port, "bob", "X-Tenant", "bob-0"), "vr"));
			}
			// each of bob's other views' reads waits for two listings (the member's resources and templates)
			List<McpSession> bobsWaiting = new ArrayList<>();
			for (int view = 1; view <= ServerListings.MAX_WAITING_PER_CALLER / 2; view++) {
				bobsWaiting.add(McpSession.open(ApiKeyCallers.http(port, "bob", "X-Tenant", "bob-" + view), "vr"));
			}
			McpSession bobElsewhere = McpSession.open(ApiKeyCallers.http(port, "bob", "X-Tenant", "bob-last"), "vr");
			McpSession alice = McpSession.open(ApiKeyCallers.http(port, "alice", "X-Tenant", "alice"), "vr");
			MEMBER.clear();

			// eight reads of one view: one listing of each of the member's resource lists, which all wait for
			List<CompletableFuture<HttpResponse<String>>> bobsReads = new ArrayList<>();
			for (McpSession bob : bobs) {
				bobsReads.add(CompletableFuture.supplyAsync(() -> bob.post(read()), clients));
			}
			awaitListings("resources/list", 1);
			awaitListings("resources/templates/list", 1);

			// bob's two listings run, his other views' wait for his turn: a read in one more view is refused at once,
			// not listed
			List<CompletableFuture<HttpResponse<String>>> bobsWaitingReads = new ArrayList<>();
			for (McpSession bob : bobsWaiting) {
				bobsWaitingReads.add(CompletableFuture.supplyAsync(() -> bob.post(read()), clients));
			}
			org.awaitility.Awaitility.await()
				.atMost(java.time.Duration.ofSeconds(30))
				.until(() -> listings.waitingForTheirCallersTurn("rm") == ServerListings.MAX_WAITING_PER_CALLER);
			JsonNode refused = last(CompletableFuture.supplyAsync(() -> bobElsewhere.post(read()), clients)
				.get(30, TimeUnit.SECONDS));
			assertThat(refused.at("/error/data/reason").asText()).as(refused.toString()).isEqualTo("listing_refused");
			assertThat(refused.at("/error/message").asText()).contains("'rm'");

			// another caller's listings still run
			CompletableFuture<HttpResponse<String>> alicesRead = CompletableFuture.supplyAsync(() -> alice.post(read()),
					clients);
			awaitListings("resources/list", 2);
			awaitListings("resources/templates/list", 2);

			MEMBER.releaseLists();
			for (CompletableFuture<HttpResponse<String>> read : bobsReads) {
				JsonNode answer = last(read.get(30, TimeUnit.SECONDS));
				assertThat(answer.at("/result/contents/0/text").asText()).as(answer.toString())
					.isEqualTo("content of res://public");
			}
			JsonNode alicesAnswer = last(alicesRead.get(30, TimeUnit.SECONDS));
			assertThat(alicesAnswer.at("/result/contents/0/text").asText()).as(alicesAnswer.toString())
				.isEqualTo("content of res://public");
			for (CompletableFuture<HttpResponse<String>> read : bobsWaitingReads) {
				JsonNode answer = last(read.get(30, TimeUnit.SECONDS));
				assertThat(answer.at("/result/contents/0/text").asText()).as("read in its turn: %s", answer)
					.isEqualTo("content of res://public");
			}
			int views = 1 + bobsWaiting.size() + 1;
			assertThat(MEMBER.count("resources/list")).as("listings: each of bob's views' one, alice's one")
				.isEqualTo(views);
			assertThat(MEMBER.count("resources/templates/list")).isEqualTo(views);

			// bob's listings ended: his other view is listed now
			JsonNode later = last(bobElsewhere.post(read()));
			assertThat(later.at("/result/contents/0/text").asText()).as(later.toString())
				.isEqualTo("content of res://public");
		}
		finally {
			MEMBER.releaseLists();
			clients.shutdownNow();
		}
	}

	private static void awaitListings(String method, long count) throws InterruptedException {
		while (MEMBER.count(method) < count) {
			Thread.sleep(10);
		}
	}

	private static String read() {
		return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/read\",\"params\":{\"uri\":\"res://public\"}}";
	}

	private static JsonNode last(HttpResponse<String> response) {
		List<JsonNode> messages = RawHttp.messagesOf(response);
		return messages.get(messages.size() - 1);
	}

}
