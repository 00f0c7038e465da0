package dev.mcprelay.proxy;

import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.unit.DataSize;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reads a whole body into memory, but never more than a limit; the buffers are released either way. */
public final class BoundedBody {

	private static final byte[] EMPTY = new byte[0];

	private BoundedBody() {
	}

	/**
	 * The body's bytes (empty for no body), or the failure from {@code tooLarge} as soon as the body passes
	 * {@code limit}, having read no further.
	 */
	public static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		return DataBufferUtils.join(body, (int) limit.toBytes())
			.map(joined -> {
				try {
					byte[] bytes = new byte[joined.readableByteCount()];
					joined.read(bytes);
					return bytes;
				}
				finally {
					DataBufferUtils.release(joined);
				}
			})
			.defaultIfEmpty(EMPTY)
			.onErrorMap(DataBufferLimitException.class, ex -> tooLarge.get());
	}

}
