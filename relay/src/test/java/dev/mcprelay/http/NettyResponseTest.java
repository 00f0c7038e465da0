package dev.mcprelay.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpMethod;

import dev.mcprelay.metrics.ExchangeRecord;
import io.netty.buffer.PooledByteBufAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A write to a client whose connection is already gone fails as the client's leaving ({@link ClientConnectionClosed}),
 * whether its body is one buffer or a stream, so that the relay never takes it for its upstream's failure; the
 * buffer handed over is released (the suite's leak detector watches).
 */
class NettyResponseTest {

	@BeforeAll
	static void loadedAsTheRelayLoadsThem() {
		// in the relay these are loaded long before a response is written: not first on an event loop, under BlockHound
		DataBufferUtils.release(DefaultDataBufferFactory.sharedInstance.allocateBuffer(1));
	}

	@ParameterizedTest(name = "a {0} body")
	@ValueSource(strings = { "one-buffer", "streamed" })
	void aWriteAfterTheClientLeftFailsAsTheClientsLeaving(String body) throws Exception {
		CompletableFuture<Throwable> outcome = new CompletableFuture<>();
		CountDownLatch received = new CountDownLatch(1);
		NettyDataBufferFactory buffers = new NettyDataBufferFactory(PooledByteBufAllocator.DEFAULT);
		Function<NettyResponse, Mono<Void>> write = response -> {
			DataBuffer buffer = buffers.allocateBuffer(2).write("{}".getBytes(StandardCharsets.UTF_8));
			return body.equals("one-buffer") ? response.write(Mono.just(buffer)) : response.write(Flux.just(buffer));
		};
		DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).handle((request, response) -> {
			NettyResponse relayed = new NettyResponse(response, buffers, ExchangeRecord.begin(HttpMethod.POST));
			response.withConnection(connection -> connection.onDispose(() -> write.apply(relayed)
				.subscribe(null, outcome::complete, () -> outcome.complete(null))));
			received.countDown();
			return Mono.never();
		}).bindNow();
		try {
			try (Socket socket = new Socket("127.0.0.1", server.port())) {
				socket.getOutputStream()
					.write("POST /mcp/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
				assertThat(received.await(5, TimeUnit.SECONDS)).isTrue();
			}

			assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(ClientConnectionClosed.class);
		}
		finally {
			server.disposeNow();
		}
	}

}
