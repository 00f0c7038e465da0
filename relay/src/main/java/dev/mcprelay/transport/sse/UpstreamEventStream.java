package dev.mcprelay.transport.sse;

import java.net.URI;
import java.util.Locale;
import java.util.function.Consumer;

import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;

import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import dev.mcprelay.transport.UpstreamHttp;
import dev.mcprelay.transport.UpstreamTransportException.Kind;
import dev.mcprelay.transport.UpstreamTransportException;
import io.netty.buffer.ByteBufAllocator;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * A legacy server's event stream, as one bridged session reads it: a GET on the configured URL that must be
 * answered 2xx with {@code text/event-stream}; a session id in an {@code Mcp-Session-Id} or {@code X-Session-Id}
 * header is handed on at once; then every event, split as its bytes arrive and never held (Netty releases each chunk
 * once it is split), up to {@code max-buffered-body} per event.
 */
final class UpstreamEventStream {

	private static final NettyDataBufferFactory BUFFERS = new NettyDataBufferFactory(ByteBufAllocator.DEFAULT);

	private UpstreamEventStream() {
	}

	/**
	 * The stream; completes when the server ends it, fails when it cannot be opened or breaks.
	 *
	 * @param onSessionHeader gets the session id of a response header, when there is one
	 * @param onEvent gets every event, in order, on the connection's event loop
	 */
	static Mono<Void> read(HttpClient httpClient, String serverId, URI uri, HttpHeaders headers, long maxEventBytes,
			Consumer<String> onSessionHeader, Consumer<SseEvent> onEvent) {
		HttpHeaders get = new HttpHeaders();
		get.addAll(headers);
		get.set(HttpHeaders.ACCEPT, MediaType.TEXT_EVENT_STREAM_VALUE);
		return UpstreamHttp.exchange(httpClient, HttpMethod.GET, uri, get, null, null, (response, body) -> {
			int status = response.status().code();
			if (status < 200 || status > 299) {
				return Mono.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_error_status",
						"MCP server '" + serverId + "' refused to open its event stream with HTTP " + status + "."));
			}
			String contentType = response.responseHeaders().get(HttpHeaders.CONTENT_TYPE);
			if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith(MediaType.TEXT_EVENT_STREAM_VALUE)) {
				return Mono.error(new UpstreamTransportException(Kind.UPSTREAM_FAILED, "upstream_not_event_stream",
						"MCP server '" + serverId + "' did not answer with an event stream; is it a legacy "
								+ "HTTP+SSE server (transport: sse)?"));
			}
			String headerSession = firstNonBlank(response.responseHeaders().get("Mcp-Session-Id"),
					response.responseHeaders().get("X-Session-Id"));
			if (headerSession != null) {
				onSessionHeader.accept(headerSession);
			}
			SseEventSplitter splitter = new SseEventSplitter(maxEventBytes);
			return body.doOnNext(chunk -> splitter.split(BUFFERS.wrap(chunk)).forEach(onEvent)).then();
		});
	}

	private static String firstNonBlank(String a, String b) {
		return a != null && !a.isBlank() ? a : b != null && !b.isBlank() ? b : null;
	}

}
