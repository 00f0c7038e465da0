package dev.mcprelay.transport;

import java.util.function.Function;

import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * MCP's Streamable HTTP transport: each client request is one HTTP exchange with the upstream, the same method, the
 * headers as the relay built them, the body as it is; the response comes back as it came. The exchange goes straight
 * through Reactor Netty's pooled {@link HttpClient}, with no codec of the relay's own, through a request sender kept
 * per upstream URL and method ({@link PreparedSenders}: it spares two copies of Reactor Netty's client configuration
 * per request, about 600 bytes allocated of the 30 KB a tools/call cost, issue 47).
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
public final class StreamableHttpTransport implements UpstreamTransport {

	private final PreparedSenders senders;

	/** @param httpClient the pooled client every upstream exchange goes through */
	public StreamableHttpTransport(HttpClient httpClient) {
		this.senders = new PreparedSenders(httpClient);
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
		return UpstreamHttp.exchange(senders.of(request.method(), request.uri()), request.headers(), request.body(),
				request.onWritten(), (response, body) -> handler.apply(new NettyUpstreamResponse(response, body)));
	}

}
