package dev.mcprelay.proxy;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.transport.WireHeaders;
import reactor.netty.Connection;
import reactor.netty.NettyOutbound;
import reactor.netty.http.server.HttpServerRequest;
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
	 * The client's request headers as Reactor Netty read them, for the header rules to read without a copy. Nothing on
	 * the relay's path rewrites a request's headers but {@link #replaceRequestHeader}, on Netty's own, so Netty's are
	 * the request's; a request that is not Reactor Netty's (a test's mock) gives a copy of its own.
	 */
	static io.netty.handler.codec.http.HttpHeaders clientHeaders(ServerWebExchange exchange) {
		if (ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest()) instanceof HttpServerRequest nativeRequest) {
			return nativeRequest.requestHeaders();
		}
		return WireHeaders.nettyOf(exchange.getRequest().getHeaders());
	}

	/**
	 * Replaces a header of the client's request where every later reader sees it (Reactor Netty's headers, of which
	 * Spring's are a view): for what the relay decided once about the request and all else must read the same way.
	 *
	 * @throws IllegalStateException when the request is neither Reactor Netty's nor a virtual server's
	 */
	static void replaceRequestHeader(ServerWebExchange exchange, String name, String value) {
		Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
		if (nativeRequest instanceof HttpServerRequest nettyRequest) {
			nettyRequest.requestHeaders().set(name, value);
		}
		else if (nativeRequest instanceof HttpHeaders ownHeaders) {
			// A virtual server's request to a member: its native request is the header map its headers are a view of.
			ownHeaders.set(name, value);
		}
		else {
			throw new IllegalStateException("The request is not Reactor Netty's: its headers cannot be replaced");
		}
	}

	/**
	 * Puts {@code headers} on the client's response, each name replacing what the response had: on Reactor Netty's
	 * response itself when there is one (Spring's headers of it are a view of the same), so nothing is copied twice.
	 */
	static void putHeaders(ServerHttpResponse response, io.netty.handler.codec.http.HttpHeaders headers) {
		if (ServerHttpResponseDecorator.getNativeResponse(response) instanceof HttpServerResponse nativeResponse) {
			nativeResponse.responseHeaders().setAll(headers);
			return;
		}
		for (String name : headers.names()) {
			response.getHeaders().put(name, headers.getAll(name));
		}
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
