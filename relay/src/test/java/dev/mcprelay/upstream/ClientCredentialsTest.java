package dev.mcprelay.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.ProtectedMcpUpstream;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.SpringAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * {@code oauth2} with {@code grant: client-credentials}, against a real authorization server (Spring Authorization
 * Server) issuing two-second tokens and a real MCP server that accepts nothing else (no clock skew): the relay is used
 * across many token lifetimes without an expired token reaching the upstream and without a token request per call;
 * a hundred calls before the first token cause one token request; a 401 from the upstream gets a fresh token and one
 * retry; an authorization server that refuses, is slow or is not there gets the client a JSON-RPC error
 * ({@code upstream_auth}) within the server's bound, and the client secret shows up nowhere.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ClientCredentialsTest {

	static final String AUDIENCE = "https://protected-mcp.example";

	static final SpringAuthorizationServer AUTH = new SpringAuthorizationServer(Duration.ofSeconds(2));

	static final ProtectedMcpUpstream UPSTREAM = new ProtectedMcpUpstream(AUTH, AUDIENCE);

	/**
	 * The same server, accepting a token up to a minute past its expiry: where how often the relay asks for a token is
	 * tested, a hundred calls on a loaded machine may reach it after their two-second token's end.
	 */
	static final ProtectedMcpUpstream LENIENT_UPSTREAM = new ProtectedMcpUpstream(AUTH, AUDIENCE, Duration.ofMinutes(1));

	/** An upstream that holds a GET stream open and answers POSTs, recording the token of each. */
	static final dev.mcprelay.testsupport.ScriptedUpstream STREAMING = new dev.mcprelay.testsupport.ScriptedUpstream();

	@LocalServerPort
	int port;

	@org.springframework.beans.factory.annotation.Autowired
	io.micrometer.core.instrument.MeterRegistry registry;

	@DynamicPropertySource
	static void relay(DynamicPropertyRegistry registry) {
		for (String id : List.of("protected", "burst", "retry", "refused", "slow", "no-expiry")) {
			registry.add("mcp-relay.servers." + id + ".url", "burst".equals(id) ? LENIENT_UPSTREAM::url : UPSTREAM::url);
			// 1s where the bound is what is tested (an authorization server slower than it); elsewhere a bound a loaded
			// machine's first token request (class loading, an RSA signature) keeps within
			registry.add("mcp-relay.servers." + id + ".timeouts.non-streaming", () -> "slow".equals(id) ? "1s" : "10s");
			registry.add("mcp-relay.servers." + id + ".oauth2.token-uri", AUTH::tokenUri);
			registry.add("mcp-relay.servers." + id + ".oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
			registry.add("mcp-relay.servers." + id + ".oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
			registry.add("mcp-relay.servers." + id + ".oauth2.scopes[0]", () -> "mcp.read");
			registry.add("mcp-relay.servers." + id + ".oauth2.audience", () -> AUDIENCE);
		}
		registry.add("mcp-relay.servers.discovered.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.discovered.oauth2.issuer-uri", AUTH::issuer);
		registry.add("mcp-relay.servers.discovered.oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
		registry.add("mcp-relay.servers.discovered.oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
		registry.add("mcp-relay.servers.discovered.oauth2.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.keyed.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.keyed.oauth2.token-uri", AUTH::tokenUri);
		registry.add("mcp-relay.servers.keyed.oauth2.client-id", () -> SpringAuthorizationServer.KEYED_RELAY_CLIENT);
		registry.add("mcp-relay.servers.keyed.oauth2.private-key", SpringAuthorizationServer::keyedClientPrivateKeyPem);
		registry.add("mcp-relay.servers.keyed.oauth2.key-id", () -> "relay-key-1");
		registry.add("mcp-relay.servers.keyed.oauth2.audience", () -> AUDIENCE);
		registry.add("mcp-relay.servers.streaming.url", () -> STREAMING.url("/mcp"));
		registry.add("mcp-relay.servers.streaming.oauth2.token-uri", AUTH::tokenUri);
		registry.add("mcp-relay.servers.streaming.oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
		registry.add("mcp-relay.servers.streaming.oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
		registry.add("mcp-relay.servers.nowhere.url", UPSTREAM::url);
		registry.add("mcp-relay.servers.nowhere.timeouts.non-streaming", () -> "1s");
		registry.add("mcp-relay.servers.nowhere.oauth2.token-uri",
				() -> "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT + "/oauth2/token");
		registry.add("mcp-relay.servers.nowhere.oauth2.client-id", () -> SpringAuthorizationServer.RELAY_CLIENT);
		registry.add("mcp-relay.servers.nowhere.oauth2.client-secret", () -> SpringAuthorizationServer.RELAY_SECRET);
	}

	@AfterEach
	void normal() {
		AUTH.mode(SpringAuthorizationServer.Mode.NORMAL, null);
	}

	@AfterAll
	static void stop() {
		STREAMING.close();
		UPSTREAM.close();
		LENIENT_UPSTREAM.close();
		AUTH.close();
	}

	@Test
	void manyTokenLifetimesWithoutARestartAnExpiredTokenOrATokenPerCall() throws Exception {
		int before = AUTH.tokenRequests();
		int rejectedBefore = UPSTREAM.rejectedTokens();
		List<String> answers = new ArrayList<>();
		long end = System.nanoTime() + Duration.ofSeconds(7).toNanos();
		while (System.nanoTime() < end) {
			answers.add(whoami("protected").at("/result/content/0/text").asText());
			Thread.sleep(100);
		}

		assertThat(answers).as("every call answered by the upstream, as the relay's client")
			.allMatch(SpringAuthorizationServer.RELAY_CLIENT::equals);
		assertThat(UPSTREAM.rejectedTokens()).as("no expired token reached the upstream").isEqualTo(rejectedBefore);
		int asked = AUTH.tokenRequests() - before;
		assertThat(asked).as("renewed across the lifetimes (%s calls)", answers.size()).isBetween(3, 8);
		assertThat(UPSTREAM.accepted().stream().map(ProtectedMcpUpstream.Accepted::token).distinct().count())
			.isGreaterThanOrEqualTo(3);
	}

	@Test
	void aHundredCallsBeforeTheFirstTokenOrAtARenewalAskForOne() {
		AUTH.mode(SpringAuthorizationServer.Mode.SLOW, Duration.ofMillis(300));

		singleFlight("before the first token", () -> hundredCallsAnsweredAtOnce("burst"));

		// past the renewal point of the two-second token (1.6 s): a hundred calls at once renew it once
		sleep(Duration.ofMillis(1800));
		singleFlight("across a renewal", () -> hundredCallsAnsweredAtOnce("burst"));
	}

	/**
	 * Runs {@code burst} and checks that its token requests flew single: never two at once (each takes 300 ms, so calls
	 * that did not wait for one another's would overlap), and no more than one per token lifetime the burst lasted
	 * (a burst on a loaded machine may outlive the two-second token's renewal point, and then renews it once more).
	 */
	private static void singleFlight(String when, Runnable burst) {
		int before = AUTH.tokenRequests();
		AUTH.resetMostAtOnce();
		long start = System.nanoTime();
		burst.run();
		long renewalsPossible = (System.nanoTime() - start) / Duration.ofMillis(1600).toNanos();
		assertThat(AUTH.mostTokenRequestsAtOnce()).as("token requests at once, " + when).isEqualTo(1);
		assertThat(AUTH.tokenRequests() - before).as("token requests, " + when).isBetween(1, 1 + (int) renewalsPossible);
	}

	/** A hundred calls to {@code server} at once, every one answered by the upstream as the relay's client. */
	private void hundredCallsAnsweredAtOnce(String server) {
		List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			calls.add(CompletableFuture.supplyAsync(() -> whoami(server)));
		}
		assertThat(calls).allSatisfy(call -> assertThat(call.join().at("/result/content/0/text").asText())
			.isEqualTo(SpringAuthorizationServer.RELAY_CLIENT));
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void theTokenEndpointCanBeFoundFromTheIssuersMetadata() {
		assertThat(whoami("discovered").at("/result/content/0/text").asText())
			.isEqualTo(SpringAuthorizationServer.RELAY_CLIENT);
	}

	@Test
	void theRelayCanAuthenticateWithItsOwnKeyInsteadOfASecret() {
		assertThat(whoami("keyed").at("/result/content/0/text").asText())
			.isEqualTo(SpringAuthorizationServer.KEYED_RELAY_CLIENT);
	}

	@Test
	void aLongStreamKeepsItsTokenAndTheNextRequestGetsTheRenewedOne() throws Exception {
		STREAMING.script((request, response) -> request.method().name().equals("GET")
				? response.header("Content-Type", "text/event-stream").sendString(reactor.core.publisher.Flux
					.concat(reactor.core.publisher.Mono.just(": open\n\n"), reactor.core.publisher.Mono.never()))
				: response.header("Content-Type", "application/json")
					.sendString(reactor.core.publisher.Mono.just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
		RawHttp http = http();
		HttpResponse<java.io.InputStream> stream = http.open(http.request("streaming").header("Accept", "text/event-stream").GET());
		assertThat(stream.statusCode()).isEqualTo(200);
		sleep(Duration.ofMillis(2200)); // past the two-second token's life

		HttpResponse<String> later = post("streaming");

		assertThat(later.statusCode()).isEqualTo(200);
		List<String> tokens = STREAMING.seen().stream().map(seen -> seen.headers().getFirst("Authorization")).toList();
		assertThat(tokens).hasSize(2).doesNotHaveDuplicates().allMatch(token -> token.startsWith("Bearer "));
		assertThat(STREAMING.closedConnections()).as("the stream is still open, on the token it opened with").isZero();
		stream.body().close();
	}

	@Test
	void aTokenGivenWithoutExpiresInIsKeptForTheDefaultLifetimeUntilTheUpstreamRefusesIt() throws Exception {
		AUTH.mode(SpringAuthorizationServer.Mode.WITHOUT_EXPIRY, null);
		int before = AUTH.tokenRequests();
		for (int i = 0; i < 12; i++) {
			assertThat(whoami("no-expiry").at("/result/content/0/text").asText())
				.isEqualTo(SpringAuthorizationServer.RELAY_CLIENT);
		}
		assertThat(AUTH.tokenRequests() - before).as("12 calls, one token (kept for default-token-lifetime: 5m)")
			.isEqualTo(1);

		// The token really lives two seconds: past them the upstream refuses it, and the relay drops it and asks again.
		int rejectedBefore = UPSTREAM.rejectedTokens();
		Thread.sleep(2500);
		assertThat(whoami("no-expiry").at("/result/content/0/text").asText())
			.isEqualTo(SpringAuthorizationServer.RELAY_CLIENT);
		assertThat(UPSTREAM.rejectedTokens() - rejectedBefore).as("the expired one, once").isEqualTo(1);
		assertThat(AUTH.tokenRequests() - before).as("then one more token").isEqualTo(2);
	}

	@Test
	void anUpstream401GetsAFreshTokenAndOneRetry() {
		whoami("retry");
		int before = AUTH.tokenRequests();
		UPSTREAM.refuseNext(1);

		JsonNode answered = whoami("retry");

		assertThat(answered.at("/result/content/0/text").asText()).isEqualTo(SpringAuthorizationServer.RELAY_CLIENT);
		assertThat(AUTH.tokenRequests() - before).isEqualTo(1);

		UPSTREAM.refuseNext(2);
		HttpResponse<String> twice = post("retry");
		assertThat(twice.statusCode()).as("refused again: relayed, not retried forever").isEqualTo(401);
	}

	@Test
	void aRefusingSlowOrMissingAuthorizationServerIsAClearErrorWithinTheBound() {
		int logMark = CapturedLogs.all().size();
		AUTH.mode(SpringAuthorizationServer.Mode.REFUSE, null);
		HttpResponse<String> refused = post("refused");
		AUTH.mode(SpringAuthorizationServer.Mode.SLOW, Duration.ofSeconds(3));
		long start = System.nanoTime();
		HttpResponse<String> slow = post("slow");
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		AUTH.mode(SpringAuthorizationServer.Mode.NORMAL, null);
		HttpResponse<String> missing = post("nowhere");

		assertThat(refused.statusCode()).isEqualTo(502);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("upstream_auth");
		assertThat(RawHttp.json(refused.body()).at("/error/message").asText()).contains("refused").contains("'refused'");
		assertThat(slow.statusCode()).isEqualTo(503);
		assertThat(RawHttp.json(slow.body()).at("/error/data/reason").asText()).isEqualTo("upstream_auth");
		assertThat(took).as("bounded by non-streaming (1s), not the authorization server's 3s").isLessThan(Duration.ofMillis(2500));
		assertThat(missing.statusCode()).isEqualTo(503);
		assertThat(RawHttp.json(missing.body()).at("/error/id").isMissingNode()).isTrue();
		assertThat(List.of(refused.body(), slow.body(), missing.body())).noneMatch(body -> body.contains(
				SpringAuthorizationServer.RELAY_SECRET));
		assertThat(CapturedLogs.since(logMark)).noneMatch(line -> line.contains(SpringAuthorizationServer.RELAY_SECRET));
		assertThat(registry.find("mcp.relay.upstream.auth.failures").tag("server", "refused").tag("reason", "refused")
			.counter()).isNotNull();
		assertThat(registry.find("mcp.relay.upstream.auth.failures").tag("server", "slow").tag("reason", "unavailable")
			.counter()).isNotNull();
		assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().toString())
			.doesNotContain(SpringAuthorizationServer.RELAY_SECRET));
	}

	private JsonNode whoami(String server) {
		HttpResponse<String> answer = post(server);
		List<JsonNode> messages = RawHttp.messagesOf(answer);
		assertThat(messages).as(answer.statusCode() + " " + answer.body()).isNotEmpty();
		return messages.get(messages.size() - 1);
	}

	private HttpResponse<String> post(String server) {
		return http().send(http().post(server, RawHttp.toolsCall(1, "whoami")));
	}

	private RawHttp http() {
		return new RawHttp(port);
	}

}
