package dev.mcprelay.proxy;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;

import reactor.netty.Connection;
import reactor.netty.NettyOutbound;
import reactor.netty.http.server.HttpServerResponse;

/** What Reactor Netty, under WebFlux, did on its own with a client's exchange, and what the relay asks of it directly. */
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

	/**
	 * Closes the client's connection at once: a client that reads nothing would never take the rest of a response
	 * (nor an error event), and what is queued for it would stay in memory.
	 */
	static void closeConnection(ServerHttpResponse response) {
		if (ServerHttpResponseDecorator.getNativeResponse(response) instanceof NettyOutbound outbound) {
			outbound.withConnection(Connection::dispose);
		}
	}

}
