package dev.mcprelay.proxy;

import java.util.Arrays;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.unit.DataSize;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads a whole body into memory, but never more than a limit. Each buffer is copied and released as it arrives, so
 * nothing is held when the body fails, is cut off or is cancelled part-way.
 */
public final class BoundedBody {

	private static final byte[] EMPTY = new byte[0];

	private BoundedBody() {
	}

	/**
	 * The body's bytes (empty for no body), or the failure from {@code tooLarge} as soon as the body passes
	 * {@code limit}, having read no further. One operator: a body of one buffer, the usual case, is copied once into
	 * an array of its size.
	 */
	public static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		long max = limit.toBytes();
		return body.collect(() -> new Bytes(max, tooLarge), Bytes::append).map(Bytes::toArray);
	}

	/** The bytes read so far; grows by doubling, up to the limit. */
	private static final class Bytes {

		private final long limit;

		private final Supplier<RelayFailure> tooLarge;

		private byte[] bytes = EMPTY;

		private int size;

		Bytes(long limit, Supplier<RelayFailure> tooLarge) {
			this.limit = limit;
			this.tooLarge = tooLarge;
		}

		void append(DataBuffer buffer) {
			try {
				int count = buffer.readableByteCount();
				if (size + (long) count > limit) {
					throw tooLarge.get();
				}
				if (size + count > bytes.length) {
					int grown = size == 0 ? count : (int) Math.min(limit, Math.max(size + count, 2L * bytes.length));
					bytes = Arrays.copyOf(bytes, grown);
				}
				buffer.read(bytes, size, count);
				size += count;
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}

		byte[] toArray() {
			return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
		}

	}

}
