package dev.mcprelay.transport;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.support.Netty4HeadersAdapter;

import io.netty.buffer.ByteBufAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClientResponse;

/**
 * A response read from Reactor Netty's {@link reactor.netty.http.client.HttpClient}: the headers are a view of
 * Netty's (nothing is copied), the body's buffers are retained as they arrive and handed on as {@link DataBuffer}s,
 * which the reader releases.
 */
final class NettyUpstreamResponse implements UpstreamResponse {

	private static final NettyDataBufferFactory BUFFERS = new NettyDataBufferFactory(ByteBufAllocator.DEFAULT);

	private final HttpClientResponse response;

	private final ByteBufFlux body;

	private HttpHeaders headers;

	NettyUpstreamResponse(HttpClientResponse response, ByteBufFlux body) {
		this.response = response;
		this.body = body;
	}

	@Override
	public HttpStatusCode statusCode() {
		return HttpStatusCode.valueOf(response.status().code());
	}

	@Override
	public HttpHeaders headers() {
		if (headers == null) {
			headers = HttpHeaders.readOnlyHttpHeaders(new HttpHeaders(new Netty4HeadersAdapter(response.responseHeaders())));
		}
		return headers;
	}

	@Override
	public io.netty.handler.codec.http.HttpHeaders wireHeaders() {
		return response.responseHeaders();
	}

	@Override
	public Flux<DataBuffer> body() {
		// Netty releases each buffer once it has been handed on: retain it for the reader, who releases it.
		return body.map(buffer -> BUFFERS.wrap(buffer.retain()));
	}

	@Override
	public Mono<Void> releaseBody() {
		// Consumed as Netty hands it over, released by Netty: the connection can go back to the pool.
		return body.then();
	}

}
