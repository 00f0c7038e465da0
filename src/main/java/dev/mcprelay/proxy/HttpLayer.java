package dev.mcprelay.proxy;

import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;

import reactor.netty.http.server.HttpServerResponse;

/** What Reactor Netty, under WebFlux, did on its own with a client's exchange. */
final class HttpLayer {

	private HttpLayer() {
	}

	/**
	 * Whether Reactor Netty already answered the exchange itself: it does so, with 400, when a request turns out
	 * malformed on the wire while its body arrives (a bad chunk size, extension or trailer), and WebFlux does not know.
	 */
	static boolean answeredAlready(ServerWebExchange exchange) {
		return ServerHttpResponseDecorator.getNativeResponse(exchange.getResponse()) instanceof HttpServerResponse nativeResponse
				&& nativeResponse.hasSentHeaders();
	}

}
