package dev.mcprelay.transport;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the upstream answered one request, as the relay reads it: status, headers and a body that can be read once.
 * The body's buffers belong to whoever reads them and must be released; a body nobody reads is released with
 * {@link #releaseBody()}. Cancelling the body's subscription ends the upstream exchange.
 */
public interface UpstreamResponse {

	HttpStatusCode statusCode();

	/** The response headers, as received; not to be changed. */
	HttpHeaders headers();

	/** The body's media type, or {@code null} when there is none or it does not parse. */
	/** The headers in Netty's form, as they came off the wire when they did (nothing copied). */
	default io.netty.handler.codec.http.HttpHeaders wireHeaders() {
		return WireHeaders.nettyOf(headers());
	}

	default MediaType contentType() {
		try {
			String value = wireHeaders().get(HttpHeaders.CONTENT_TYPE);
			return value == null || value.isEmpty() ? null : MediaType.parseMediaType(value);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** The body, as it arrives; subscribe once. */
	Flux<DataBuffer> body();

	/** Reads and releases the body nobody needs; completes when it is consumed. */
	default Mono<Void> releaseBody() {
		return body().map(DataBufferUtils::release).then();
	}

}
