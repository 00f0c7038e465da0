package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.LocalUpstreamResponse;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import reactor.core.publisher.Mono;

/**
 * Review 46k, K5: one transient failure of the relay's own request (a 503 from a gateway whose server restarts, an
 * injected one here: no real server fails on purpose) was kept as the verdict for {@link ServerVersions#PROBE_INTERVAL},
 * so every 2026 client of a session-era server got the raw refusal for ten seconds. Now only a verdict the server gave
 * is kept for the interval; the absence of one is asked again after {@link SharedVerdict#RETRY} (doubled in a row).
 * The interval's clock is the test's.
 */
class TransientOwnRequestFailureTest {

	private static final URI URL = URI.create("http://127.0.0.1:1/mcp");

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	@Test
	void aDiscoverAnswered503IsAskedAgainAfterASecondNotAfterTheInterval() throws Exception {
		Scripted server = new Scripted(503, 503, 400);
		ModernProbe probe = new ModernProbe(server, new OwnRequests(ServerCredentials.NONE, "t"), "t", 65536,
				Duration.ofSeconds(6), clock::get);
		ServerVersions versions = new ServerVersions("t", List.of());

		assertThat(ask(probe, versions)).isEqualTo(ModernProbe.Verdict.UNANSWERED);
		assertThat(ask(probe, versions)).as("kept for a moment").isEqualTo(ModernProbe.Verdict.UNANSWERED);
		assertThat(server.asked.get()).isEqualTo(1);

		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(ask(probe, versions)).as("asked again a second later").isEqualTo(ModernProbe.Verdict.UNANSWERED);
		assertThat(server.asked.get()).isEqualTo(2);

		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(ask(probe, versions)).as("the second failure in a row is kept twice as long")
			.isEqualTo(ModernProbe.Verdict.UNANSWERED);
		assertThat(server.asked.get()).isEqualTo(2);

		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(ask(probe, versions)).as("the server's own word, once it answers")
			.isEqualTo(ModernProbe.Verdict.SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(3);

		clock.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos() - Duration.ofMillis(1).toNanos());
		assertThat(ask(probe, versions)).as("which is kept for the interval").isEqualTo(ModernProbe.Verdict.SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(3);
	}

	/**
	 * Review 46l, N4: a gateway's maintenance page answered 200 {@code text/html} is no word of the server's either:
	 * it was kept for the interval, as if the server had refused, where a 503 page is asked again after a second.
	 */
	@Test
	void aDiscoverAnsweredByA200PageIsAskedAgainAfterASecond() throws Exception {
		Scripted server = new Scripted(PAGE, NOT_JSON_RPC, 400);
		ModernProbe probe = new ModernProbe(server, new OwnRequests(ServerCredentials.NONE, "t"), "t", 65536,
				Duration.ofSeconds(6), clock::get);
		ServerVersions versions = new ServerVersions("t", List.of());

		assertThat(ask(probe, versions)).isEqualTo(ModernProbe.Verdict.UNANSWERED);
		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(ask(probe, versions)).as("asked again a second later; a 200 JSON that is no JSON-RPC message: none")
			.isEqualTo(ModernProbe.Verdict.UNANSWERED);
		assertThat(server.asked.get()).isEqualTo(2);
		clock.addAndGet(SharedVerdict.RETRY.toNanos() * 2);
		assertThat(ask(probe, versions)).as("the server's own word, once it answers")
			.isEqualTo(ModernProbe.Verdict.SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(3);
	}

	@Test
	void anInitializeAnsweredByA200PageIsAskedAgainAfterASecond() throws Exception {
		Scripted server = new Scripted(PAGE, 200);
		ServerVersions versions = new ServerVersions("t", List.of());
		SessionEraProbe probe = new SessionEraProbe(server, new OwnRequests(ServerCredentials.NONE, "t"), "t",
				versions, 65536, Duration.ofSeconds(6), clock::get);

		assertThat(probe.ask(request(), System.nanoTime()).block(Duration.ofSeconds(60)))
			.isEqualTo(SessionEraProbe.Verdict.UNANSWERED);
		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(probe.ask(request(), System.nanoTime()).block(Duration.ofSeconds(60)))
			.isEqualTo(SessionEraProbe.Verdict.SPEAKS_SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(2);
	}

	@Test
	void aRefusalOfTheServersIsKeptForTheInterval() throws Exception {
		Scripted server = new Scripted(401, 400);
		ModernProbe probe = new ModernProbe(server, new OwnRequests(ServerCredentials.NONE, "t"), "t", 65536,
				Duration.ofSeconds(6), clock::get);
		ServerVersions versions = new ServerVersions("t", List.of());

		assertThat(ask(probe, versions)).isEqualTo(ModernProbe.Verdict.UNKNOWN);
		clock.addAndGet(SharedVerdict.RETRY.toNanos() * 3);
		assertThat(ask(probe, versions)).as("the server's word: kept").isEqualTo(ModernProbe.Verdict.UNKNOWN);
		assertThat(server.asked.get()).isEqualTo(1);
		clock.addAndGet(ServerVersions.PROBE_INTERVAL.toNanos());
		assertThat(ask(probe, versions)).isEqualTo(ModernProbe.Verdict.SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(2);
	}

	@Test
	void anInitializeAnswered503IsAskedAgainAfterASecond() throws Exception {
		Scripted server = new Scripted(503, 200);
		ServerVersions versions = new ServerVersions("t", List.of());
		SessionEraProbe probe = new SessionEraProbe(server, new OwnRequests(ServerCredentials.NONE, "t"), "t",
				versions, 65536, Duration.ofSeconds(6), clock::get);

		assertThat(probe.ask(request(), System.nanoTime()).block(Duration.ofSeconds(60)))
			.isEqualTo(SessionEraProbe.Verdict.UNANSWERED);
		clock.addAndGet(SharedVerdict.RETRY.toNanos());
		assertThat(probe.ask(request(), System.nanoTime()).block(Duration.ofSeconds(60)))
			.isEqualTo(SessionEraProbe.Verdict.SPEAKS_SESSION_ERA);
		assertThat(server.asked.get()).isEqualTo(2);
	}

	private static ModernProbe.Verdict ask(ModernProbe probe, ServerVersions versions) throws Exception {
		return probe.ask(request(), versions, System.nanoTime()).toFuture().get(60, TimeUnit.SECONDS);
	}

	private static UpstreamRequest request() {
		return new UpstreamRequest("t", HttpMethod.POST, URL, new HttpHeaders(), new byte[0], "alice", null);
	}

	/** A gateway's maintenance page, answered 200 {@code text/html}. */
	private static final int PAGE = -200;

	/** A 200 whose JSON body is no JSON-RPC message. */
	private static final int NOT_JSON_RPC = -201;

	/**
	 * A session-era server behind a gateway: its n-th own request of the relay's is answered the n-th status given
	 * (the last one from then on): 503 and 401 with no body, 400 -32601 (the method is unknown), 200 an
	 * {@code initialize}'s result of 2025-11-25 (no session); {@link #PAGE} and {@link #NOT_JSON_RPC} a 200 of the
	 * gateway's.
	 */
	private static final class Scripted implements PostOnlyUpstream {

		final AtomicInteger asked = new AtomicInteger();

		private final int[] statuses;

		Scripted(int... statuses) {
			this.statuses = statuses;
		}

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				int scripted = statuses[Math.min(asked.getAndIncrement(), statuses.length - 1)];
				int status = scripted < 0 ? 200 : scripted;
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(scripted == PAGE ? MediaType.TEXT_HTML : MediaType.APPLICATION_JSON);
				String body = switch (scripted) {
					case PAGE -> "<html>Down for maintenance</html>";
					case NOT_JSON_RPC -> "{\"status\":\"maintenance\"}";
					case 400 -> "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"no\"}}";
					case 200 -> "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-relay-initialize\",\"result\":{\"protocolVersion\":"
							+ "\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}";
					default -> "";
				};
				return handler.apply(LocalUpstreamResponse.replay(HttpStatus.valueOf(status), headers,
						body.getBytes(StandardCharsets.UTF_8)));
			});
		}

	}

}
