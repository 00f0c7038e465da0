package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;

/**
 * Review 46l, N2: Reactor Netty's pool of an upstream address keeps, for the life of the process, the configuration of
 * the acquisition that created it, whose body is that exchange's writer ({@link UpstreamExchange}); the writer held the
 * first request's headers (the caller's credential among them), its body and its reader. Now an exchange drops them
 * when it ends: answered, failed or cancelled; and the first request of a pool is not reachable once it was answered.
 * The upstream is Reactor Netty's HTTP server in this JVM, answering at once or, for the request that is to be
 * cancelled, only once the test is done. Each test asks when the end reaches its subscriber, so a drop that comes after
 * (as {@code doFinally} does) fails it every time, not once in a while (CI of a569102).
 */
class EndedExchangeKeepsNoRequestTest {

	private static final Duration PATIENCE = Duration.ofSeconds(60);

	private final CountDownLatch heldArrived = new CountDownLatch(1);

	/** Ends the held request's answer (no body) once the test is done with it. */
	private final Sinks.Empty<Void> release = Sinks.empty();

	private final AtomicInteger answered = new AtomicInteger();

	private DisposableServer upstream;

	private ConnectionProvider pool;

	private HttpClient client;

	@BeforeEach
	void start() {
		upstream = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route(routes -> routes.post("/mcp", (request, response) -> request.receive().then(Mono.defer(() -> {
				answered.incrementAndGet();
				return response.header("Content-Type", "application/json").sendString(Mono.just("{}")).then();
			}))).post("/held", (request, response) -> request.receive().then(Mono.defer(() -> {
				heldArrived.countDown();
				return release.asMono();
			}))))
			.bindNow();
		// the relay's upstream pool (UpstreamClientConfiguration)
		pool = ConnectionProvider.builder("mcp-relay-upstream")
			.maxConnections(2000)
			.pendingAcquireMaxCount(-1)
			.maxIdleTime(Duration.ofSeconds(30))
			.evictInBackground(Duration.ofSeconds(30))
			.build();
		client = HttpClient.create(pool).compress(false).followRedirect(false);
	}

	@AfterEach
	void stop() {
		release.tryEmitEmpty();
		pool.disposeLater().block(PATIENCE);
		upstream.disposeNow(PATIENCE);
	}

	@Test
	void anAnsweredExchangeKeepsNothingOfItsRequest() {
		UpstreamExchange exchange = exchange(uri("/mcp"), headers("sk-answered-46m"), body());
		AtomicBoolean heldWhenTold = new AtomicBoolean(true);

		exchange.mono().doOnSuccess(done -> heldWhenTold.set(exchange.holdsRequest())).block(PATIENCE);

		assertThat(answered.get()).isEqualTo(1);
		assertThat(heldWhenTold.get()).as("headers, body, onWritten and reader dropped before the answer is told")
			.isFalse();
	}

	@Test
	void aFailedExchangeKeepsNothingOfItsRequest() throws IOException {
		URI refused;
		try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			refused = URI.create("http://127.0.0.1:" + closed.getLocalPort() + "/mcp");
		}
		UpstreamExchange exchange = exchange(refused, headers("sk-failed-46m"), body());
		AtomicBoolean heldWhenTold = new AtomicBoolean(true);

		assertThatThrownBy(
				() -> exchange.mono().doOnError(failed -> heldWhenTold.set(exchange.holdsRequest())).block(PATIENCE))
			.isNotNull();

		assertThat(heldWhenTold.get()).as("dropped before the failure is told").isFalse();
	}

	@Test
	void aCancelledExchangeKeepsNothingOfItsRequest() throws InterruptedException {
		UpstreamExchange exchange = exchange(uri("/held"), headers("sk-cancelled-46m"), body());

		Disposable running = exchange.mono().subscribe();
		assertThat(heldArrived.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the request is upstream").isTrue();
		assertThat(exchange.holdsRequest()).as("a live exchange keeps its request").isTrue();
		running.dispose();

		assertThat(exchange.holdsRequest()).isFalse();
	}

	/**
	 * The end to end view: the first request to an address, answered, its connection idle in the pool (which keeps the
	 * acquisition's configuration, and so the writer): neither its headers (the caller's credential) nor its body are
	 * reachable any more.
	 */
	@Test
	void thePoolKeepsNothingOfTheFirstRequestItWasMadeFor() throws InterruptedException {
		HttpHeaders headers = headers("sk-first-request-46m");
		byte[] body = body();
		WeakReference<HttpHeaders> keptHeaders = new WeakReference<>(headers);
		WeakReference<byte[]> keptBody = new WeakReference<>(body);
		UpstreamHttp.exchange(client, HttpMethod.POST, uri("/mcp"), headers, body, () -> {
		}, (response, content) -> content.then()).block(PATIENCE);
		headers = null;
		body = null;
		assertThat(answered.get()).isEqualTo(1);

		for (int collections = 0; collections < 20 && (keptHeaders.get() != null || keptBody.get() != null);
				collections++) {
			System.gc();
			Thread.sleep(50);
		}

		assertThat(keptHeaders.get()).as("the first request's headers").isNull();
		assertThat(keptBody.get()).as("the first request's body").isNull();
		// the pool is still there, its connection idle: the next request takes it
		UpstreamHttp.exchange(client, HttpMethod.POST, uri("/mcp"), headers("sk-second-46m"), body(), null,
				(response, content) -> content.then()).block(PATIENCE);
		assertThat(answered.get()).isEqualTo(2);
	}

	private UpstreamExchange exchange(URI uri, HttpHeaders headers, byte[] body) {
		return new UpstreamExchange(UpstreamHttp.prepare(client, HttpMethod.POST, uri), headers, body, () -> {
		}, (response, content) -> content.then(), 1);
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + upstream.port() + path);
	}

	private static HttpHeaders headers(String key) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.CONTENT_TYPE, "application/json");
		headers.set("X-Api-Key", key);
		return headers;
	}

	private static byte[] body() {
		return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".getBytes(StandardCharsets.UTF_8);
	}

}
