package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.unit.DataSize;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads a whole body into memory, but never more than a limit. Each buffer is copied and released as it arrives, so
 * nothing is held when the body fails, is cut off or is cancelled part-way.
 *
 * <p>Within a client's request the memory is also taken from the relay's budget for all bodies together
 * ({@link BufferedBodies}) before it is allocated: a body whose length is declared takes it all at once, before
 * anything is read, and a body of unknown length takes each buffer's size as it arrives. Past the budget the read fails
 * with {@link RelayFailures#relayOverloaded()} (503) having allocated nothing more; what a failed or cancelled read took
 * goes back at once, and a body read whole stays counted until the request's exchange ends.
 */
public final class BoundedBody {

	private static final byte[] EMPTY = new byte[0];

	private BoundedBody() {
	}

	/** As {@link #read(Flux, long, DataSize, Supplier)} for a body whose length is not declared. */
	public static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		return read(body, -1, limit, tooLarge);
	}

	/**
	 * The body's bytes (empty for no body), or the failure from {@code tooLarge} as soon as the body passes
	 * {@code limit}, having read no further. A body of one buffer, the usual case, is copied once into an array of its
	 * size; so is a body of {@code declaredLength} bytes, however many buffers it comes in.
	 *
	 * @param declaredLength the body's length as its {@code Content-Length} declares it, or -1
	 */
	public static Mono<byte[]> read(Flux<DataBuffer> body, long declaredLength, DataSize limit,
			Supplier<RelayFailure> tooLarge) {
		long max = limit.toBytes();
		return Mono.deferContextual(context -> {
			Bytes bytes = new Bytes(max, tooLarge, BufferedBodies.leaseOf(context));
			if (declaredLength > 0 && declaredLength <= max && !bytes.expect((int) declaredLength)) {
				return Mono.error(RelayFailures.relayOverloaded());
			}
			return body.collect(() -> bytes, Bytes::append)
				.map(Bytes::toArray)
				.doOnError(error -> bytes.discard())
				.doOnCancel(bytes::discard);
		});
	}

	/**
	 * The bytes read so far: one array of the declared length, or one array per buffer, joined at the end. Every array
	 * is taken from the lease (when there is one) before it is made.
	 */
	private static final class Bytes {

		private final long limit;

		private final Supplier<RelayFailure> tooLarge;

		private final BufferedBodies.Lease lease;

		/** The array of the declared length, filled as the body arrives; {@code null} when none was declared. */
		private byte[] declared;

		private final List<byte[]> chunks = new ArrayList<>(1);

		private int size;

		/** What this read took from the lease and has not given back. */
		private long taken;

		Bytes(long limit, Supplier<RelayFailure> tooLarge, BufferedBodies.Lease lease) {
			this.limit = limit;
			this.tooLarge = tooLarge;
			this.lease = lease;
		}

		/** Takes room for a body of {@code length} bytes at once; {@code false} when the budget has none. */
		boolean expect(int length) {
			if (!take(length)) {
				return false;
			}
			declared = new byte[length];
			return true;
		}

		void append(DataBuffer buffer) {
			try {
				int count = buffer.readableByteCount();
				if (size + (long) count > limit) {
					throw tooLarge.get();
				}
				if (declared != null && size + count <= declared.length) {
					buffer.read(declared, size, count);
				}
				else {
					if (declared != null) {
						// more than declared: what came so far becomes the first chunk, the declared room goes back
						chunks.add(java.util.Arrays.copyOf(declared, size));
						give(declared.length - size);
						declared = null;
					}
					if (!take(count)) {
						throw RelayFailures.relayOverloaded();
					}
					byte[] chunk = new byte[count];
					buffer.read(chunk);
					chunks.add(chunk);
				}
				size += count;
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}

		byte[] toArray() {
			if (declared != null) {
				if (size == declared.length) {
					return declared;
				}
				// fewer bytes than declared (the server ended the body early): the array of their size
				byte[] shorter = java.util.Arrays.copyOf(declared, size);
				give(declared.length - size);
				declared = null;
				return shorter;
			}
			if (chunks.isEmpty()) {
				return EMPTY;
			}
			if (chunks.size() == 1) {
				return chunks.get(0);
			}
			// joined: for a moment both the chunks and the whole are held, the whole counted as taken
			force(size);
			byte[] whole = new byte[size];
			int at = 0;
			for (byte[] chunk : chunks) {
				System.arraycopy(chunk, 0, whole, at, chunk.length);
				at += chunk.length;
			}
			chunks.clear();
			give(size);
			return whole;
		}

		/** The read failed or was cancelled: what it took goes back to the budget. */
		void discard() {
			give(taken);
			declared = null;
			chunks.clear();
		}

		private boolean take(long bytes) {
			if (lease == null) {
				return true;
			}
			if (!lease.take(bytes)) {
				return false;
			}
			taken += bytes;
			return true;
		}

		private void force(long bytes) {
			if (lease != null) {
				lease.force(bytes);
				taken += bytes;
			}
		}

		private void give(long bytes) {
			if (lease != null && bytes > 0) {
				lease.give(bytes);
				taken -= bytes;
			}
		}

	}

}
