package dev.mcprelay.transport;

import java.util.function.Function;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * MCP's Streamable HTTP transport: each client request is one HTTP exchange with the upstream, the same method, the
 * headers as the relay built them, the body as it is; the response comes back as it came. The exchange goes straight
 * through Reactor Netty's pooled {@link HttpClient}, with no per-request codec or builder work.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
public final class StreamableHttpTransport implements UpstreamTransport {

	private final HttpClient httpClient;

	/** @param httpClient the pooled client every upstream exchange goes through */
	public StreamableHttpTransport(HttpClient httpClient) {
		this.httpClient = httpClient;
	}

	@Override
	public Mono<Void> send(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return exchange(request, handler);
	}

	@Override
	public Mono<Void> receive(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return exchange(request, handler);
	}

	@Override
	public Mono<Void> close(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return exchange(request, handler);
	}

	@Override
	public Mono<Void> exchange(UpstreamRequest request, Function<UpstreamResponse, Mono<Void>> handler) {
		return send(httpClient, request).response((response, body) -> handler.apply(new NettyUpstreamResponse(response, body)))
			.then();
	}

	/**
	 * The request on its way: headers as given (with the body's length), the body written in one piece, and the
	 * request's {@link UpstreamRequest#onWritten()} run once both are on the connection.
	 */
	static HttpClient.ResponseReceiver<?> send(HttpClient httpClient, UpstreamRequest request) {
		byte[] body = request.body();
		return httpClient.request(HttpMethod.valueOf(request.method().name()))
			.uri(request.uri())
			.send((out, outbound) -> {
				io.netty.handler.codec.http.HttpHeaders headers = out.requestHeaders();
				// set, not add: the client's values replace Reactor Netty's defaults (Accept, User-Agent)
				request.headers().forEach(headers::set);
				Mono<Void> written;
				if (body == null) {
					written = outbound.then();
				}
				else {
					// Reactor Netty marks a request with a body chunked until told its length.
					headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
					headers.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
					written = outbound.sendByteArray(Mono.just(body)).then();
				}
				return written.doOnSuccess(done -> request.onWritten().run());
			});
	}

}
