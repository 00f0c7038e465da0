package dev.mcprelay.transport;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.springframework.http.HttpMethod;

import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * MCP's Streamable HTTP transport: each client request is one HTTP exchange with the upstream, the same method, the
 * headers as the relay built them, the body as it is; the response comes back as it came. The exchange goes straight
 * through Reactor Netty's pooled {@link HttpClient}, with no per-request codec or builder work: the sender of each
 * upstream URL and method is made once.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http">MCP
 * Streamable HTTP</a>
 */
public final class StreamableHttpTransport implements UpstreamTransport {

	/** At most this many senders are kept: one per configured upstream URL and method, in any real configuration. */
	static final int MAX_SENDERS = 1024;

	private final HttpClient httpClient;

	private final Map<Target, HttpClient.RequestSender> senders = new ConcurrentHashMap<>();

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
		return UpstreamHttp.send(sender(request.method(), request.uri()), request.headers(), request.body(),
				request.onWritten())
			.response((response, body) -> handler.apply(new NettyUpstreamResponse(response, body)))
			.then();
	}

	/** The sender of {@code method} requests to {@code uri}, made once and kept (up to {@link #MAX_SENDERS}). */
	private HttpClient.RequestSender sender(HttpMethod method, URI uri) {
		Target target = new Target(method, uri);
		HttpClient.RequestSender sender = senders.get(target);
		if (sender == null) {
			sender = UpstreamHttp.sender(httpClient, method, uri);
			if (senders.size() < MAX_SENDERS) {
				senders.putIfAbsent(target, sender);
			}
		}
		return sender;
	}

	/** Where a request goes. */
	private record Target(HttpMethod method, URI uri) {
	}

}
