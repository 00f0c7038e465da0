package dev.mcprelay.virtual;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a member's relay answered one message of a virtual server with, as the client of a direct server would have
 * received it: status, headers and body. The body must be consumed (its buffers released) or discarded: the member's
 * exchange ends when it is.
 *
 * @param cutByRelay the reason the member's relay itself ended the member's exchange, as its access-log line says it
 * ({@code relay_shutting_down} when shutdown's grace period ended before the member's answer did,
 * {@code server_removed} ...), or {@code null}; asked when needed, since a stream is cut after its answer began
 * @param refusedAsWithdrawn whether the member's relay itself refused the message, the caller's access to the member
 * withdrawn by a reload since the client request's admission ({@code access_withdrawn}): the client's request refused,
 * not an answer of the member's
 * @param written the headers as the member's relay wrote them, which {@code headers} is a read-only view of, for a
 * consumer that copies them line by line ({@link AnswerRelay}); {@code null} when {@code headers} stand alone
 */
record MemberAnswer(String member, HttpStatusCode status, HttpHeaders headers, Flux<DataBuffer> body,
		Supplier<String> cutByRelay, BooleanSupplier refusedAsWithdrawn,
		io.netty.handler.codec.http.HttpHeaders written) {

	/** An answer whose exchange the relay did not cut (as far as it tells). */
	MemberAnswer(String member, HttpStatusCode status, HttpHeaders headers, Flux<DataBuffer> body) {
		this(member, status, headers, body, () -> null, () -> false, null);
	}

	/**
	 * This answer, its exchange's cut told by {@code cutByRelay}, and its refusal as withdrawn by
	 * {@code refusedAsWithdrawn}.
	 */
	MemberAnswer cutBy(Supplier<String> cutByRelay, BooleanSupplier refusedAsWithdrawn) {
		return new MemberAnswer(member, status, headers, body, cutByRelay, refusedAsWithdrawn, written);
	}

	/** Whether the body is an event stream. */
	boolean isEventStream() {
		MediaType type = contentType();
		return type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type);
	}

	/** Whether the body is one JSON document. */
	boolean isJson() {
		MediaType type = contentType();
		return type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type);
	}

	private MediaType contentType() {
		try {
			return headers.getContentType();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** Ends the member's exchange without reading its body. */
	Mono<Void> discard() {
		return body.doOnNext(DataBufferUtils::release).then();
	}

	/** The whole body, up to {@code limit} bytes (more fails with {@code DataBufferLimitException}). */
	Mono<byte[]> bytes(int limit) {
		return DataBufferUtils.join(body, limit).map(joined -> {
			try {
				byte[] bytes = new byte[joined.readableByteCount()];
				joined.read(bytes);
				return bytes;
			}
			finally {
				DataBufferUtils.release(joined);
			}
		}).defaultIfEmpty(new byte[0]);
	}

}
