package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Flux;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;

/**
 * The batching on a real Reactor Netty connection: an event stream written an event per HTTP chunk arrives whole and
 * in fewer pieces, a JSON body is left alone, and the handler leaves the pooled connection with its exchange.
 */
class EventStreamReadBatchingTest {

	private static final int EVENTS = 2000;

	private DisposableServer server;

	private ConnectionProvider pool;

	private HttpClient client;

	/** The pipeline's handler names as each response's headers arrived, before the batching was installed for it. */
	private final List<List<String>> pipelines = new CopyOnWriteArrayList<>();

	@BeforeEach
	void start() {
		server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route(routes -> routes.get("/events", (request, response) -> {
				List<String> events = new ArrayList<>();
				for (int i = 0; i < EVENTS; i++) {
					events.add("data: {\"n\":" + i + "}\n\n");
				}
				// one HTTP chunk per event, all written at once: many share a socket read
				return response.header(HttpHeaderNames.CONTENT_TYPE, "text/event-stream")
					.sendString(Flux.fromIterable(events));
			}).get("/json", (request, response) -> response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
				.sendString(Flux.just("{\"a\":", "1}"))))
			.bindNow();
		pool = ConnectionProvider.builder("batching-test").maxConnections(1).build();
		client = HttpClient.create(pool)
			.doOnResponse((response, connection) -> pipelines.add(connection.channel().pipeline().names()))
			.doOnResponse(EventStreamReadBatching::installOnEventStream)
			.baseUrl("http://127.0.0.1:" + server.port());
	}

	@AfterEach
	void stop() {
		server.disposeNow();
		pool.disposeLater().block(Duration.ofSeconds(5));
	}

	@Test
	void anEventStreamArrivesWholeInFewerPiecesThanItsChunks() {
		List<String> pieces = client.get()
			.uri("/events")
			.responseContent()
			.asString(StandardCharsets.UTF_8)
			.collectList()
			.block(Duration.ofSeconds(10));

		StringBuilder expected = new StringBuilder();
		for (int i = 0; i < EVENTS; i++) {
			expected.append("data: {\"n\":").append(i).append("}\n\n");
		}
		assertThat(String.join("", pieces)).isEqualTo(expected.toString());
		assertThat(pieces).as("socket reads, not %d chunks", EVENTS).hasSizeLessThan(EVENTS / 4);
	}

	@Test
	void theHandlerLeavesThePooledConnectionWithItsExchangeAndJsonIsLeftAlone() {
		client.get().uri("/events").responseContent().aggregate().asString().block(Duration.ofSeconds(10));
		String json = client.get().uri("/json").responseContent().aggregate().asString().block(Duration.ofSeconds(10));

		assertThat(json).isEqualTo("{\"a\":1}");
		assertThat(pipelines).hasSize(2);
		assertThat(pipelines.get(1)).as("the same pooled connection, without the last exchange's batching")
			.doesNotContain(EventStreamReadBatching.NAME);
	}

	@Test
	void bytesHeldWhenTheHandlerIsRemovedArePassedOnNotDropped() {
		io.netty.channel.embedded.EmbeddedChannel channel = new io.netty.channel.embedded.EmbeddedChannel(
				EventStreamReadBatching.forTest());
		channel.writeOneInbound(new io.netty.handler.codec.http.DefaultHttpContent(
				io.netty.buffer.Unpooled.copiedBuffer("data: 1\n\n", java.nio.charset.StandardCharsets.UTF_8)));
		channel.writeOneInbound(new io.netty.handler.codec.http.DefaultHttpContent(
				io.netty.buffer.Unpooled.copiedBuffer("data: 2\n\n", java.nio.charset.StandardCharsets.UTF_8)));
		assertThat((Object) channel.readInbound()).as("held until the read completes").isNull();

		channel.pipeline().remove(EventStreamReadBatching.class);

		io.netty.handler.codec.http.HttpContent passed = channel.readInbound();
		assertThat(passed).as("what the handler held when it was removed (its exchange ended while the connection read "
				+ "on) goes on").isNotNull();
		assertThat(passed.content().toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("data: 1\n\ndata: 2\n\n");
		passed.release();
		channel.finishAndReleaseAll();
	}

}
