package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.concurrent.EventExecutor;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionPoolMetrics;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * A request that finds only dead connections in the pool (the upstream closed its idle keep-alive connections, the
 * relay's event loops read the FINs only after the pool handed them out) is sent on a new connection instead of
 * failing with Reactor Netty's "Error while acquiring from ..." ({@link UpstreamExchange}).
 *
 * <p>The race is made deterministic by the order of tasks on the event loops. The client is the relay's upstream client
 * (its pool settings, {@code UpstreamClientConfiguration}) on two event loops, holding two idle connections to a raw
 * server, one on each loop. Each loop is held busy by a task, and each connection's close is queued behind it (where
 * the loop, under load, would read the upstream's FIN); then:
 * <ol>
 * <li>the request's acquisition (on the test thread) finds the first connection alive and queues its check on loop
 * A, behind the close;</li>
 * <li>loop A is let go: it closes the first connection, then runs the check, which finds it dead and acquires again,
 * from loop A: the pool finds the second connection alive (loop B is still held) and queues its check on loop B; a
 * marker task queued on A after the first check tells the test that this happened;</li>
 * <li>loop B is let go: it closes the second connection, then its check finds it dead too: the acquisition fails,
 * with nothing written anywhere.</li>
 * </ol>
 */
class DeadPooledConnectionsTest {

	private static final Duration PATIENCE = Duration.ofSeconds(60);

	private final RawServer server = new RawServer();

	private final List<Channel> channels = new CopyOnWriteArrayList<>();

	private final List<HeldLoop> held = new CopyOnWriteArrayList<>();

	private final AtomicReference<ConnectionPoolMetrics> poolMetrics = new AtomicReference<>();

	private LoopResources loops;

	private ConnectionProvider pool;

	private HttpClient client;

	private URI uri;

	@BeforeEach
	void start() throws IOException {
		server.start();
		uri = URI.create("http://127.0.0.1:" + server.port() + "/mcp");
		loops = LoopResources.create("dead-pool-test", 2, true);
		// the relay's upstream pool (UpstreamClientConfiguration), with a registrar that shows the pool's counts
		pool = ConnectionProvider.builder("mcp-relay-upstream")
			.maxConnections(2000)
			.pendingAcquireMaxCount(-1)
			.maxIdleTime(Duration.ofSeconds(30))
			.evictInBackground(Duration.ofSeconds(30))
			.metrics(true, () -> (poolName, id, remoteAddress, metrics) -> poolMetrics.set(metrics))
			.build();
		client = HttpClient.create(pool)
			.compress(false)
			.followRedirect(false)
			.doOnResponse(EventStreamReadBatching::installOnEventStream)
			.runOn(loops)
			.doOnChannelInit((observer, channel, remoteAddress) -> channels.add(channel));
	}

	@AfterEach
	void stop() {
		held.forEach(loop -> loop.released = true);
		pool.disposeLater().block(PATIENCE);
		loops.disposeLater().block(PATIENCE);
		server.stop();
	}

	@Test
	void reactorNettyFailsTheAcquisitionWhenBothPooledConnectionsItPicksAreDead() throws Exception {
		CompletableFuture<String> answer = afterTwoPooledConnectionsDied(() -> client.headers(headers -> headers.set(HttpHeaderNames.CONTENT_LENGTH, 2))
			.post()
			.uri(uri)
			.send(ByteBufFlux.fromString(Mono.just("{}")))
			.responseSingle((response, body) -> body.asString())
			.toFuture());

		assertThat(failureOf(answer)).as("the failure this transport's retry is for; if Reactor Netty stops failing "
				+ "so, UpstreamExchange's retry may go")
			.isExactlyInstanceOf(IOException.class)
			.hasMessageStartingWith("Error while acquiring from ")
			.hasNoCause()
			.matches(UpstreamExchange::foundOnlyDeadConnections);
		assertThat(server.requests.get()).as("nothing of the third request reached the server").isEqualTo(2);
	}

	@Test
	void theTransportSendsTheRequestOnANewConnectionWhenThePoolHadOnlyDeadOnes() throws Exception {
		StreamableHttpTransport transport = new StreamableHttpTransport(client);
		AtomicInteger written = new AtomicInteger();
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.CONTENT_TYPE, "application/json");
		UpstreamRequest request = new UpstreamRequest("dead-pool", HttpMethod.POST, uri, headers,
				"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}".getBytes(StandardCharsets.UTF_8), null,
				written::incrementAndGet);
		AtomicReference<String> status = new AtomicReference<>();

		CompletableFuture<Void> exchange = afterTwoPooledConnectionsDied(() -> transport
			.send(request, response -> {
				status.set(response.statusCode().toString());
				return response.releaseBody();
			})
			.toFuture());

		exchange.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		assertThat(status.get()).startsWith("200");
		assertThat(written.get()).as("onWritten ran once, for the attempt that was written").isEqualTo(1);
		assertThat(server.connections.get()).as("a third connection, for the retry").isEqualTo(3);
		assertThat(server.requests.get()).as("the request reached the server once").isEqualTo(3);
	}

	@Test
	void onlyAnUnsentRequestWhosePoolHadOnlyDeadConnectionsIsAttemptedAgainAndOnlyAFewTimes() {
		IOException dead = new IOException("Error while acquiring from reactor.netty.internal.shaded.reactor.pool.X");

		assertThat(UpstreamExchange.retries(dead, false, 1)).isTrue();
		assertThat(UpstreamExchange.retries(dead, false, UpstreamExchange.MAX_ATTEMPTS - 1)).isTrue();
		assertThat(UpstreamExchange.retries(dead, false, UpstreamExchange.MAX_ATTEMPTS)).as("bounded").isFalse();
		assertThat(UpstreamExchange.retries(dead, true, 1)).as("written: never again").isFalse();
		assertThat(UpstreamExchange.retries(new ConnectException("Connection refused"), false, 1)).isFalse();
		assertThat(UpstreamExchange.retries(new IOException("Error while acquiring from x") {
		}, false, 1)).as("a subclass (a refusal, a reset, a premature close) is another failure").isFalse();
		assertThat(UpstreamExchange.retries(new IOException("Error while acquiring from x", new IOException()), false,
				1)).as("a failure with a cause is another one").isFalse();
		assertThat(UpstreamExchange.retries(new IOException("Connection reset by peer"), false, 1)).isFalse();
	}

	/**
	 * Two idle pooled connections, one per event loop, each closed by a task queued behind a task that holds its loop;
	 * then {@code request} is subscribed and the loops are let go in the order described above.
	 */
	private <T> CompletableFuture<T> afterTwoPooledConnectionsDied(Supplier<CompletableFuture<T>> request)
			throws Exception {
		// two requests at once, each subscribed on its own event loop: two connections, one per loop (the loops
		// colocate: a connection opened from a loop is that loop's); the one answered first is released to the pool
		// first, and the pool hands out its least recently used idle connection first (Reactor Netty's fifo leasing)
		List<CompletableFuture<CompletableFuture<String>>> pings = new ArrayList<>();
		for (EventExecutor loop : loops.onClient(LoopResources.DEFAULT_NATIVE)) {
			pings.add(CompletableFuture.supplyAsync(this::ping, loop));
		}
		assertThat(pings).hasSize(2);
		CompletableFuture<String> first = pings.get(0).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		CompletableFuture<String> second = pings.get(1).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		CompletableFuture.anyOf(first, second).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		await("the first connection idle", () -> poolMetrics.get().idleSize() == 1);
		server.answerSecond.countDown();
		CompletableFuture.allOf(first, second).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		await("both connections idle", () -> poolMetrics.get().idleSize() == 2);
		assertThat(channels).hasSize(2);
		Channel firstOut = channelAt(server.firstAnsweredPort.get());
		Channel secondOut = channels.get(0) == firstOut ? channels.get(1) : channels.get(0);
		assertThat(firstOut.eventLoop()).as("one connection per event loop").isNotSameAs(secondOut.eventLoop());

		// each loop held, then told to close its connection as it would on reading the upstream's FIN
		HeldLoop firstLoop = hold(firstOut);
		HeldLoop secondLoop = hold(secondOut);
		firstOut.close();
		secondOut.close();

		CompletableFuture<T> answer = request.get();
		await("the first connection handed out", () -> poolMetrics.get().acquiredSize() == 1
				&& poolMetrics.get().idleSize() == 1);
		assertThat(firstOut.isActive()).as("handed out alive").isTrue();
		firstLoop.released = true;
		CountDownLatch checkedFirst = new CountDownLatch(1);
		firstOut.eventLoop().execute(checkedFirst::countDown);
		assertThat(checkedFirst.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		await("the second connection handed out", () -> poolMetrics.get().idleSize() == 0);
		assertThat(secondOut.isActive()).as("handed out alive").isTrue();
		secondLoop.released = true;
		return answer;
	}

	/** Holds {@code channel}'s event loop in a busy task until released; returns once the loop runs it. */
	private HeldLoop hold(Channel channel) throws InterruptedException {
		HeldLoop loop = new HeldLoop();
		held.add(loop);
		channel.eventLoop().execute(loop);
		assertThat(loop.running.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the loop held").isTrue();
		return loop;
	}

	private Channel channelAt(int localPort) {
		return channels.stream()
			.filter(channel -> ((InetSocketAddress) channel.localAddress()).getPort() == localPort)
			.findFirst()
			.orElseThrow();
	}

	private CompletableFuture<String> ping() {
		return client.headers(headers -> headers.set(HttpHeaderNames.CONTENT_LENGTH, 2))
			.post()
			.uri(uri)
			.send(ByteBufFlux.fromString(Mono.just("{}")))
			.responseSingle((response, body) -> body.asString())
			.toFuture();
	}

	private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
		try {
			future.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("the request succeeded");
	}

	/** Waits on the test thread for a state of the pool or the server that the steps above bring about. */
	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				StringBuilder dump = new StringBuilder();
				Thread.getAllStackTraces().forEach((thread, stack) -> {
					if (thread.getName().contains("dead-pool-test")) {
						dump.append(thread.getName()).append('\n');
						for (StackTraceElement e : stack) {
							dump.append("  ").append(e).append('\n');
						}
					}
				});
				throw new AssertionError("never came about: " + what + "\n" + dump);
			}
			Thread.sleep(1);
		}
	}

	/**
	 * A task that keeps an event loop busy until released, so that what is queued on the loop meanwhile runs after
	 * it, in order: a busy spin, no blocking call (BlockHound counts even {@code Thread.onSpinWait} as one).
	 */
	private static final class HeldLoop implements Runnable {

		final CountDownLatch running = new CountDownLatch(1);

		volatile boolean released;

		@Override
		public void run() {
			running.countDown();
			long deadline = System.nanoTime() + PATIENCE.toNanos();
			while (!released && System.nanoTime() < deadline) {
				// spin
			}
		}

	}

	/**
	 * An HTTP/1.1 server on a socket of its own, for what no real server does on cue: it answers each request 200
	 * with a small JSON body on a kept-alive connection, the second request it reads only once told to (so that the
	 * first connection is back in the pool first), and counts connections and requests.
	 */
	private static final class RawServer {

		final AtomicInteger connections = new AtomicInteger();

		final AtomicInteger requests = new AtomicInteger();

		final AtomicInteger firstAnsweredPort = new AtomicInteger();

		final CountDownLatch answerSecond = new CountDownLatch(1);

		private final List<Socket> accepted = new CopyOnWriteArrayList<>();

		private ServerSocket socket;

		void start() throws IOException {
			socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
			Thread acceptor = new Thread(this::accept, "dead-pool-test-server");
			acceptor.setDaemon(true);
			acceptor.start();
		}

		int port() {
			return socket.getLocalPort();
		}

		void closeConnections() throws IOException {
			for (Socket connection : accepted) {
				connection.close();
			}
		}

		void stop() {
			try {
				socket.close();
				closeConnections();
			}
			catch (IOException ex) {
				// closing
			}
		}

		private void accept() {
			while (!socket.isClosed()) {
				try {
					Socket connection = socket.accept();
					connections.incrementAndGet();
					accepted.add(connection);
					Thread reader = new Thread(() -> serve(connection), "dead-pool-test-connection");
					reader.setDaemon(true);
					reader.start();
				}
				catch (IOException ex) {
					return;
				}
			}
		}

		private void serve(Socket connection) {
			try (connection) {
				InputStream in = connection.getInputStream();
				OutputStream out = connection.getOutputStream();
				while (true) {
					int length = readHead(in);
					if (length < 0) {
						return;
					}
					in.readNBytes(length);
					int number = requests.incrementAndGet();
					if (number == 1) {
						firstAnsweredPort.set(connection.getPort());
					}
					else if (number == 2 && !answerSecond.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
						return;
					}
					out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
						.getBytes(StandardCharsets.US_ASCII));
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// the connection was closed
			}
		}

		/** Reads a request's head; its Content-Length, or -1 at the end of the stream. */
		private static int readHead(InputStream in) throws IOException {
			StringBuilder head = new StringBuilder();
			int b;
			while ((b = in.read()) != -1) {
				head.append((char) b);
				if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
					for (String line : head.toString().split("\r\n")) {
						if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
							return Integer.parseInt(line.substring(15).trim());
						}
					}
					return 0;
				}
			}
			return -1;
		}

	}

}
