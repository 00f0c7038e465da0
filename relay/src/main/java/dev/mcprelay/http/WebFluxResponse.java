package dev.mcprelay.http;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.NettyOutbound;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@link RelayResponse} over WebFlux's response, for the answers the relay writes to requests WebFlux carries (the
 * paths off Reactor Netty's route: Spring Security's refusals, the error handler's). Writes go through WebFlux's
 * response; headers are Reactor Netty's own, of which WebFlux's are a view,
 * or, on a response that is not Reactor Netty's, Netty headers of their own, put on WebFlux's when it commits.
 */
public final class WebFluxResponse implements RelayResponse {

	private final ServerHttpResponse response;

	private final Object nativeResponse;

	private final HttpHeaders headers;

	private WebFluxResponse(ServerHttpResponse response) {
		this.response = response;
		this.nativeResponse = ServerHttpResponseDecorator.getNativeResponse(response);
		if (nativeResponse instanceof HttpServerResponse netty) {
			this.headers = netty.responseHeaders();
		}
		else {
			HttpHeaders own = new DefaultHttpHeaders();
			response.beforeCommit(() -> {
				own.names().forEach(name -> response.getHeaders().put(name, own.getAll(name)));
				return Mono.empty();
			});
			this.headers = own;
		}
	}

	/** WebFlux's {@code response} as the relay writes it. */
	public static WebFluxResponse of(ServerHttpResponse response) {
		return new WebFluxResponse(response);
	}

	@Override
	public void status(HttpStatusCode status) {
		response.setStatusCode(status);
	}

	@Override
	public HttpHeaders headers() {
		return headers;
	}

	@Override
	public DataBufferFactory bufferFactory() {
		return response.bufferFactory();
	}

	@Override
	public Mono<Void> write(Publisher<? extends DataBuffer> body) {
		return response.writeWith(body);
	}

	@Override
	public Mono<Void> writeAndFlushEach(Publisher<? extends DataBuffer> body) {
		return response.writeAndFlushWith(Flux.from(body).map(Mono::just));
	}

	@Override
	public Mono<Void> complete() {
		return response.setComplete();
	}

	@Override
	public void beforeCommit(Runnable action) {
		response.beforeCommit(() -> Mono.fromRunnable(action));
	}

	@Override
	public boolean committed() {
		return response.isCommitted();
	}

	@Override
	public void closeConnection() {
		if (nativeResponse instanceof NettyOutbound outbound) {
			outbound.withConnection(Connection::dispose);
		}
	}

	/** Whether Reactor Netty already sent a response of its own (see {@link RelayExchange#answeredByServer()}). */
	public boolean sentByServer() {
		return nativeResponse instanceof HttpServerResponse netty && netty.hasSentHeaders();
	}

}
