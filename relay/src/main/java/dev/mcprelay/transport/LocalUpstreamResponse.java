package dev.mcprelay.transport;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;

import dev.mcprelay.sse.SseEventWriter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A Streamable HTTP answer a transport composes itself from what its upstream delivered another way (the legacy SSE
 * transport's answers arrive on a separate stream): JSON, an SSE stream of messages, or 202. Its buffers are heap
 * buffers; releasing them is harmless.
 */
public final class LocalUpstreamResponse implements UpstreamResponse {

	private static final DefaultDataBufferFactory BUFFERS = DefaultDataBufferFactory.sharedInstance;

	private final HttpStatusCode status;

	private final HttpHeaders headers;

	private final Flux<DataBuffer> body;

	private LocalUpstreamResponse(HttpStatusCode status, HttpHeaders headers, Flux<DataBuffer> body) {
		this.status = status;
		this.headers = HttpHeaders.readOnlyHttpHeaders(headers);
		this.body = body;
	}

	/** 200 with one JSON-RPC message as {@code application/json}. */
	public static LocalUpstreamResponse json(HttpHeaders headers, byte[] message) {
		HttpHeaders all = new HttpHeaders();
		all.addAll(headers);
		all.setContentType(MediaType.APPLICATION_JSON);
		all.setContentLength(message.length);
		return new LocalUpstreamResponse(HttpStatus.OK, all, Flux.defer(() -> Flux.just(BUFFERS.wrap(message))));
	}

	/**
	 * 200 with an SSE stream of {@code events}, each one complete event as it goes on the wire (a JSON-RPC message as
	 * a {@code message} event, {@link SseEventWriter#message}, or a comment), as they come.
	 */
	public static LocalUpstreamResponse eventStream(HttpHeaders headers, Flux<byte[]> events) {
		HttpHeaders all = new HttpHeaders();
		all.addAll(headers);
		all.setContentType(MediaType.TEXT_EVENT_STREAM);
		all.setCacheControl("no-cache");
		return new LocalUpstreamResponse(HttpStatus.OK, all, events.map(BUFFERS::wrap));
	}

	/** {@code status} with {@code headers} and {@code body} as an upstream sent them, read whole before (a JSON answer). */
	public static LocalUpstreamResponse replay(HttpStatusCode status, HttpHeaders headers, byte[] body) {
		return new LocalUpstreamResponse(status, headers, Flux.defer(() -> Flux.just(BUFFERS.wrap(body))));
	}

	/** A status with no body: 202 for accepted notifications and responses, 200 for an ended session. */
	public static LocalUpstreamResponse empty(HttpStatus status) {
		HttpHeaders headers = new HttpHeaders();
		headers.setContentLength(0);
		return new LocalUpstreamResponse(status, headers, Flux.empty());
	}

	@Override
	public HttpStatusCode statusCode() {
		return status;
	}

	@Override
	public HttpHeaders headers() {
		return headers;
	}

	@Override
	public Flux<DataBuffer> body() {
		return body;
	}

	@Override
	public Mono<Void> releaseBody() {
		return Mono.empty();
	}

}
