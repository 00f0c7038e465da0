package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.mcprelay.Sha256;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SdkMcpUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * A virtual session that ends without its client's DELETE ends every member session, as the DELETE would have: one
 * that expires ({@code sessions.idle-timeout}, 2 s here), in the memory store and in Redis, and one evicted because
 * its caller opened more than {@code sessions.max-per-caller} (1 here). The members are the Java SDK's servers, which
 * record every request. A session that expires while its client holds its GET stream open ends that stream too,
 * rather than joining its members again into a session that ended. A member session is known by the GET stream the
 * relay opens in it as soon as the client said {@code notifications/initialized} (it holds the members' streams for the
 * client's GET from then on).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VirtualSessionEndTest {

	static final String EXPIRING_KEY = "expiring-key-0a1b2c3d4e5f6071";

	static final String EVICTING_KEY = "evicting-key-94a3b2c1d0e9f8a7";

	/** A second server, so that the two members are two servers with sessions of their own. */
	static final SdkMcpUpstream SECOND = new SdkMcpUpstream();

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		registry.add("mcp-relay.security.mode", () -> "api-key");
		registry.add("mcp-relay.security.api-keys[0].client", () -> "expiring");
		registry.add("mcp-relay.security.api-keys[0].key-sha256", () -> Sha256.hex(EXPIRING_KEY));
		registry.add("mcp-relay.security.api-keys[0].servers[0]", () -> "*");
		registry.add("mcp-relay.security.api-keys[1].client", () -> "evicting");
		registry.add("mcp-relay.security.api-keys[1].key-sha256", () -> Sha256.hex(EVICTING_KEY));
		registry.add("mcp-relay.security.api-keys[1].servers[0]", () -> "*");
		registry.add("mcp-relay.sessions.idle-timeout", () -> "2s");
		registry.add("mcp-relay.sessions.max-per-caller", () -> "1");
		registry.add("mcp-relay.servers.alpha.url", () -> TestUpstreams.SDK.url("/mcp"));
		registry.add("mcp-relay.servers.gamma.url", () -> SECOND.url("/mcp"));
		registry.add("mcp-relay.virtual-servers.pair.members", () -> "alpha,gamma");
	}

	@AfterAll
	static void stopSecond() throws Exception {
		SECOND.close();
	}

	@Test
	void aSessionThatExpiresEndsEveryMemberSession() {
		RawHttp http = new RawHttp(port, "X-Api-Key", EXPIRING_KEY);
		Set<String> members = memberSessionsOf(() -> McpSession.open(http, "pair"));

		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(deleted()).as("a DELETE reached each member").containsAll(members));
	}

	@Test
	void aSessionThatExpiresUnderItsClientsOpenStreamEndsTheStreamAndEveryMemberSession() throws Exception {
		RawHttp http = new RawHttp(port, "X-Api-Key", EXPIRING_KEY);
		McpSession[] opened = new McpSession[1];
		Set<String> members = memberSessionsOf(() -> opened[0] = McpSession.open(http, "pair"));
		java.net.http.HttpResponse<java.io.InputStream> stream = http.open(http.request("pair")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", opened[0].id())
			.GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> {
				try (java.io.InputStream body = stream.body()) {
					return body.readAllBytes();
				}
				catch (java.io.IOException ex) {
					throw new java.io.UncheckedIOException(ex);
				}
			});

		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(deleted()).as("a DELETE reached each member").containsAll(members));
		// the session's stream here ends with it, rather than joining its members again into a session that ended
		assertThat(read.get(20, java.util.concurrent.TimeUnit.SECONDS)).as("the client's stream ended").isNotNull();
	}

	@Test
	void aSessionEvictedForItsCallersNextOneEndsEveryMemberSessionAndOnlyThose() {
		RawHttp http = new RawHttp(port, "X-Api-Key", EVICTING_KEY);
		Set<String> first = memberSessionsOf(() -> McpSession.open(http, "pair"));
		McpSession[] opened = new McpSession[1];
		Set<String> second = memberSessionsOf(() -> opened[0] = McpSession.open(http, "pair"));
		McpSession kept = opened[0];
		// the newer session stays in use meanwhile, so that only the evicted one may end
		java.util.concurrent.ScheduledExecutorService pinger = java.util.concurrent.Executors
			.newSingleThreadScheduledExecutor();
		try {
			pinger.scheduleWithFixedDelay(() -> kept.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"), 0,
					300, java.util.concurrent.TimeUnit.MILLISECONDS);
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(deleted()).as("the evicted session's members").containsAll(first));
			assertThat(deleted()).as("the newer session's members were not ended with it")
				.doesNotContainAnyElementsOf(second);
		}
		finally {
			pinger.shutdownNow();
		}
	}

	@Test
	void aSessionThatExpiresInRedisEndsEveryMemberSession() throws Exception {
		try (TwoRelaysOverRedis relays = TwoRelaysOverRedis.start("--mcp-relay.sessions.idle-timeout=2s",
				"--mcp-relay.servers.alpha.url=" + TestUpstreams.SDK.url("/mcp"),
				"--mcp-relay.servers.gamma.url=" + SECOND.url("/mcp"), "--mcp-relay.virtual-servers.pair.members=alpha,gamma")) {
			RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
			Set<String> members = memberSessionsOf(() -> McpSession.open(http, "pair"));

			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(deleted()).as("a DELETE reached each member").containsAll(members));
		}
	}

	/**
	 * The member sessions of the session {@code open} opens: those of the members' GET streams the relay opens for
	 * it (whatever GETs of other sessions were sent before it are left out).
	 */
	private static Set<String> memberSessionsOf(java.util.function.Supplier<McpSession> open) {
		Set<String> before = gets();
		open.get();
		await().atMost(Duration.ofSeconds(10)).until(() -> gets().size() >= before.size() + 2);
		Set<String> opened = gets();
		opened.removeAll(before);
		assertThat(opened).as("one member session each with alpha and gamma").hasSize(2);
		return opened;
	}

	private static Set<String> gets() {
		return sessionIds("GET");
	}

	private static Set<String> deleted() {
		return sessionIds("DELETE");
	}

	private static Set<String> sessionIds(String method) {
		return java.util.stream.Stream.concat(TestUpstreams.SDK.seen().stream(), SECOND.seen().stream())
			.filter(seen -> seen.method().equals(method) && seen.path().equals("/mcp"))
			.map(seen -> seen.headers().getFirst("Mcp-Session-Id"))
			.filter(java.util.Objects::nonNull)
			.collect(Collectors.toSet());
	}

}
