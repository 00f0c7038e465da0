package dev.mcprelay.metrics;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The client's response, counting the body bytes handed to the connection into an {@link ExchangeRecord}. */
final class CountingResponse extends ServerHttpResponseDecorator {

	private final ExchangeRecord record;

	CountingResponse(ServerHttpResponse delegate, ExchangeRecord record) {
		super(delegate);
		this.record = record;
	}

	@Override
	public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
		return super.writeWith(Flux.from(body).doOnNext(this::count));
	}

	@Override
	public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		return super.writeAndFlushWith(Flux.from(body).map(group -> Flux.from(group).doOnNext(this::count)));
	}

	private void count(DataBuffer buffer) {
		record.countBytes(buffer.readableByteCount());
	}

}
