package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatusCode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.NonReadingClient;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestUpstreams;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a stream has handed to its client's connection and the client has not taken is bounded by bytes
 * ({@code sessions.max-held-bytes}), not only by the count of pieces Reactor Netty's write takes ahead (128): a client
 * that reads nothing of a stream of large events makes the relay hold the bound, not 128 events.
 */
class ClientWriteWindowTest {

	@Test
	void piecesAreHandedOnWhileWhatIsNotWrittenYetFitsTheBound() {
		List<Runnable> written = new CopyOnWriteArrayList<>();
		List<DataBuffer> handed = new CopyOnWriteArrayList<>();

		Disposable writing = ClientWriteWindow
			.buffers(Flux.range(0, 5).map(i -> new byte[400]), new CountingResponse(written), 1000, () -> { })
			.subscribe(handed::add);

		assertThat(handed).as("800 bytes handed; 400 more would pass 1000").hasSize(2);
		written.get(0).run();
		assertThat(handed).as("one written: room for the next").hasSize(3);
		written.get(1).run();
		written.get(2).run();
		assertThat(handed).hasSize(5);
		writing.dispose();
	}

	@Test
	void aPieceLargerThanTheBoundIsHandedOnAloneOnly() {
		List<Runnable> written = new CopyOnWriteArrayList<>();
		List<DataBuffer> handed = new CopyOnWriteArrayList<>();

		Disposable writing = ClientWriteWindow
			.buffers(Flux.just(new byte[10], new byte[5000], new byte[10]), new CountingResponse(written), 1000, () -> { })
			.subscribe(handed::add);

		assertThat(handed).as("the large piece waits for the small one before it").hasSize(1);
		written.get(0).run();
		assertThat(handed).as("then goes alone").hasSize(2);
		written.get(1).run();
		assertThat(handed).hasSize(3);
		writing.dispose();
	}

	@Test
	void aLargePieceIsHandedOnInSlicesEachTellingWhenTheClientTookIt() {
		List<Runnable> written = new CopyOnWriteArrayList<>();
		List<DataBuffer> handed = new CopyOnWriteArrayList<>();
		AtomicInteger taken = new AtomicInteger();
		byte[] piece = new byte[2 * ClientWriteWindow.SLICE + 10];
		for (int i = 0; i < piece.length; i++) {
			piece[i] = (byte) (i / ClientWriteWindow.SLICE);
		}

		Disposable writing = ClientWriteWindow
			.buffers(Flux.just(piece), new CountingResponse(written), ClientWriteWindow.SLICE, taken::incrementAndGet)
			.subscribe(handed::add);

		assertThat(handed).as("one slice fills the bound").hasSize(1);
		assertThat(taken).as("nothing written yet").hasValue(0);
		written.get(0).run();
		assertThat(taken).as("the client took the first slice").hasValue(1);
		written.get(1).run();
		assertThat(taken).hasValue(2);
		assertThat(handed).extracting(DataBuffer::readableByteCount)
			.containsExactly(ClientWriteWindow.SLICE, ClientWriteWindow.SLICE, 10);
		assertThat(handed).extracting(buffer -> buffer.getByte(0)).containsExactly((byte) 0, (byte) 1, (byte) 2);
		writing.dispose();
	}

	@Test
	void aClientThatReadsNothingOfAStreamOfLargeEventsIsHandedTheBoundNotAHundredEvents() throws Exception {
		// 200 progress events of 512 KB, then the result: far more than the bound (1 MB) and the sockets hold
		String padding = "x".repeat(512 * 1024);
		TestUpstreams.SCRIPTED.clear();
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "text/event-stream")
			.sendString(Flux.range(0, 200)
				.map(i -> "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,"
						+ "\"progress\":" + i + ",\"message\":\"" + padding + "\"}}\n\n")
				.concatWith(Mono.just("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"))));
		int logMark = CapturedLogs.all().size();
		try (ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class,
				OwnEventLoops.class)
			.properties("server.port=0", "mcp-relay.servers.big.url=" + TestUpstreams.SCRIPTED.url("/mcp"),
					"mcp-relay.servers.big.max-buffered-body=2MB", "mcp-relay.servers.big.timeouts.client-write=2s",
					"mcp-relay.sessions.max-held-bytes=1MB")
			.run();
				NonReadingClient client = NonReadingClient.post(
						((WebServerApplicationContext) relay).getWebServer().getPort(), "/mcp/big",
						RawHttp.toolsCall(1, "burst"))) {
			// reads nothing: the relay gives up on the client after client-write (2s) once it holds all it may
			String line = NonReadingClient.awaitAccessLine(logMark, "rpc_method=tools/call");

			assertThat(line).contains("reason=client_write_timeout");
			Matcher bytes = Pattern.compile(" bytes=(\\d+)").matcher(line);
			assertThat(bytes.find()).as(line).isTrue();
			assertThat(Long.parseLong(bytes.group(1)))
				.as("handed to a client that read nothing: the bound (1 MB), an event (0.5 MB) and what the sockets "
						+ "took, never 128 events of 0.5 MB (64 MB)")
				.isLessThan(10L * 1024 * 1024);
		}
	}

	/** A response whose buffers tell the test, not a connection, when they are written: each is written on demand. */
	private static final class CountingResponse implements RelayResponse {

		private final List<Runnable> written;

		CountingResponse(List<Runnable> written) {
			this.written = written;
		}

		@Override
		public DataBuffer wrap(byte[] bytes, int offset, int length, Runnable onGone) {
			written.add(onGone);
			return bufferFactory().wrap(java.util.Arrays.copyOfRange(bytes, offset, offset + length));
		}

		@Override
		public DataBufferFactory bufferFactory() {
			return DefaultDataBufferFactory.sharedInstance;
		}

		@Override
		public void status(HttpStatusCode status) {
		}

		@Override
		public HttpHeaders headers() {
			return new DefaultHttpHeaders();
		}

		@Override
		public Mono<Void> write(Publisher<? extends DataBuffer> body) {
			return Flux.from(body).then();
		}

		@Override
		public Mono<Void> writeAndFlushEach(Publisher<? extends DataBuffer> body) {
			return write(body);
		}

		@Override
		public Mono<Void> complete() {
			return Mono.empty();
		}

		@Override
		public void beforeCommit(Runnable action) {
		}

		@Override
		public boolean committed() {
			return false;
		}

		@Override
		public void closeConnection() {
		}

	}

}
