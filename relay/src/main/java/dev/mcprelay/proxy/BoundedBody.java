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
 * ({@link BufferedBodies}) before it is allocated, buffer by buffer as the bytes arrive, whatever length the body
 * declares: a client that declares a large body and sends it slowly holds only what it sent. Past the budget the read
 * fails with {@link RelayFailures#relayOverloaded()} (503) having allocated nothing more; what a failed or cancelled
 * read took goes back at once, and a body read whole stays counted until the request's exchange ends.
 */
public final class BoundedBody {

	private static final byte[] EMPTY = new byte[0];

	private BoundedBody() {
	}

	/**
	 * The body's bytes (empty for no body), or the failure from {@code tooLarge} as soon as the body passes
	 * {@code limit}, having read no further. A body of one buffer, the usual case, is copied once into an array of its
	 * size; a body of several is joined once whole, its parts and the whole counted for that moment.
	 */
	public static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		long max = limit.toBytes();
		return Mono.deferContextual(context -> {
			Bytes bytes = new Bytes(max, tooLarge, BufferedBodies.leaseOf(context));
			return body.collect(() -> bytes, Bytes::append)
				.map(Bytes::toArray)
				.doOnError(error -> bytes.discard())
				.doOnCancel(bytes::discard);
		});
	}

	/**
	 * The bytes read so far: the first buffer's in an array of its size, the rest in blocks of at least
	 * {@value #BLOCK} bytes, so that a body sent a byte at a time costs no array per byte; joined at the end. Every
	 * array is taken from the lease (when there is one) before it is made.
	 */
	private static final class Bytes {

		/** The least room a block after the first array is made with. */
		private static final int BLOCK = 8 * 1024;

		private final long limit;

		private final Supplier<RelayFailure> tooLarge;

		private final BufferedBodies.Lease lease;

		private final List<byte[]> chunks = new ArrayList<>(1);

		/** The bytes used of the last array of {@link #chunks}. */
		private int lastFill;

		private int size;

		/** What this read took from the lease and has not given back. */
		private long taken;

		Bytes(long limit, Supplier<RelayFailure> tooLarge, BufferedBodies.Lease lease) {
			this.limit = limit;
			this.tooLarge = tooLarge;
			this.lease = lease;
		}

		void append(DataBuffer buffer) {
			try {
				int count = buffer.readableByteCount();
				if (size + (long) count > limit) {
					throw tooLarge.get();
				}
				int copied = 0;
				if (!chunks.isEmpty()) {
					byte[] last = chunks.get(chunks.size() - 1);
					copied = Math.min(last.length - lastFill, count);
					buffer.read(last, lastFill, copied);
					lastFill += copied;
				}
				int rest = count - copied;
				if (rest > 0) {
					int length = chunks.isEmpty() ? rest : Math.max(rest, BLOCK);
					if (!take(length)) {
						throw RelayFailures.relayOverloaded();
					}
					byte[] chunk = new byte[length];
					buffer.read(chunk, 0, rest);
					chunks.add(chunk);
					lastFill = rest;
				}
				size += count;
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}

		byte[] toArray() {
			if (chunks.isEmpty()) {
				return EMPTY;
			}
			if (chunks.size() == 1 && lastFill == chunks.get(0).length) {
				return chunks.get(0);
			}
			// joined: for a moment both the chunks and the whole are held, the whole counted as taken
			force(size);
			byte[] whole = new byte[size];
			int at = 0;
			long made = 0;
			for (byte[] chunk : chunks) {
				int used = Math.min(chunk.length, size - at);
				System.arraycopy(chunk, 0, whole, at, used);
				at += used;
				made += chunk.length;
			}
			chunks.clear();
			give(made);
			return whole;
		}

		/** The read failed or was cancelled: what it took goes back to the budget. */
		void discard() {
			give(taken);
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
