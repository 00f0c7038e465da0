package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
 * Review 46k, K4: the client request whose refusal made the relay ask its own request (its whole body, its headers,
 * the caller's credentials among them) was kept alive by the verdict the relay keeps ({@link SharedVerdict}), until
 * the next exchange, which never comes once the versions are learnt (the reviewer's 18 MB request stayed in the heap).
 * Now the exchange is made from the server's URL alone: once the caller has its verdict, nothing of its request is
 * reachable from the probe (a weak reference to it is cleared by a collection while the verdict is still kept).
 */
class OwnRequestsKeepNoClientRequestTest {

	private static final URI URL = URI.create("http://127.0.0.1:1/mcp");

	@Test
	void theDiscoversKeptVerdictHoldsNothingOfTheClientsRequest() throws Exception {
		ModernProbe probe = new ModernProbe(new Refusing(), new OwnRequests(ServerCredentials.NONE, "k"), "k", 65536,
				Duration.ofSeconds(6), System::nanoTime);
		ServerVersions versions = new ServerVersions("k", List.of());
		WeakReference<UpstreamRequest> asked = askedOnce(request -> probe.ask(request, versions, System.nanoTime())
			.block(Duration.ofSeconds(60)));

		assertThat(collected(asked)).as("the client's request is no longer reachable").isTrue();
		assertThat(probe.ask(request(), versions, System.nanoTime()).block(Duration.ofSeconds(60)))
			.as("the verdict is still kept").isEqualTo(ModernProbe.Verdict.SESSION_ERA);
	}

	@Test
	void theInitializesKeptVerdictHoldsNothingOfTheClientsRequest() throws Exception {
		ServerVersions versions = new ServerVersions("k", List.of());
		SessionEraProbe probe = new SessionEraProbe(new Refusing(), new OwnRequests(ServerCredentials.NONE, "k"), "k",
				versions, 65536, Duration.ofSeconds(6));
		WeakReference<UpstreamRequest> asked = askedOnce(request -> probe.ask(request, System.nanoTime())
			.block(Duration.ofSeconds(60)));

		assertThat(collected(asked)).as("the client's request is no longer reachable").isTrue();
	}

	/** Asks with a request of a megabyte and a credential header, and keeps only a weak reference to it. */
	private static WeakReference<UpstreamRequest> askedOnce(Function<UpstreamRequest, Object> ask) {
		UpstreamRequest request = request();
		Object verdict = ask.apply(request);
		assertThat(verdict).isNotNull();
		return new WeakReference<>(request);
	}

	private static boolean collected(WeakReference<?> reference) throws InterruptedException {
		for (int i = 0; i < 50 && reference.get() != null; i++) {
			System.gc();
			Thread.sleep(20);
		}
		return reference.get() == null;
	}

	private static UpstreamRequest request() {
		HttpHeaders headers = new HttpHeaders();
		headers.set("Authorization", "Bearer caller-secret");
		headers.set("MCP-Protocol-Version", "2026-07-28");
		return new UpstreamRequest("k", HttpMethod.POST, URL, headers, new byte[1024 * 1024], "alice", null);
	}

	/** A session-era server: refuses every request it does not know with -32601 (an {@code initialize} too). */
	private static final class Refusing implements PostOnlyUpstream {

		@Override
		public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
			return Mono.defer(() -> {
				HttpHeaders headers = new HttpHeaders();
				headers.setContentType(MediaType.APPLICATION_JSON);
				return handler.apply(LocalUpstreamResponse.replay(HttpStatus.BAD_REQUEST, headers,
						"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"no\"}}"
							.getBytes(StandardCharsets.UTF_8)));
			});
		}

	}

}
