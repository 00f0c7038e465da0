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
 * <p>Within a client's request the memory is also counted in the relay's budget for all bodies together
 * ({@link BufferedBodies}) before it is allocated, buffer by buffer as the bytes arrive, whatever length the body
 * declares: a client that declares a large body and sends it slowly holds only what it sent. A body the relay is to
 * parse ({@link #read}) counts each byte twice, the byte and room for what the byte becomes once read: joined into one
 * array with the others, then parsed into a tree, whose strings take their size again ({@link BodyCharge} uses that
 * room first, and gives back what the tree did not need); so that a body that was read whole can, as a rule, be parsed,
 * instead of being refused at the end for the room its own parse takes. Past the budget such a read fails with
 * {@link RelayFailures#relayOverloaded()} (503) having allocated nothing more; the first of the bodies being read now
 * competes only with the bodies read whole, so that one always finishes ({@link BufferedBodies}). An upstream's answer to a request already
 * forwarded ({@link #readAnswer}) is counted once and never refused. What a failed or cancelled read took goes back at
 * once; a body read whole stays counted until the request's exchange ends.
 */
public final class BoundedBody {

	private static final byte[] EMPTY = new byte[0];

	private BoundedBody() {
	}

	/**
	 * The body's bytes (empty for no body), or the failure from {@code tooLarge} as soon as the body passes
	 * {@code limit}, having read no further, or {@code relay_overloaded} when the budget has no room for the bytes that
	 * came and for parsing them. A body of one buffer, the usual case, is copied once into an array of its size; a body
	 * of several is joined once whole.
	 */
	public static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		return read(body, limit, tooLarge, false);
	}

	/**
	 * As {@link #read}, for the answer to a request the upstream already has: a call that ran upstream is never
	 * answered "try again" for want of memory, so its answer is counted in the budget (holding back new requests while
	 * it is held) but never refused by it, and counted once: it is scanned, not parsed whole.
	 */
	public static Mono<byte[]> readAnswer(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge) {
		return read(body, limit, tooLarge, true);
	}

	private static Mono<byte[]> read(Flux<DataBuffer> body, DataSize limit, Supplier<RelayFailure> tooLarge,
			boolean answer) {
		long max = limit.toBytes();
		return Mono.deferContextual(context -> {
			Bytes bytes = new Bytes(max, tooLarge, BufferedBodies.leaseOf(context), answer);
			return body.collect(() -> bytes, Bytes::append)
				.map(Bytes::toArray)
				.doOnError(error -> bytes.discard())
				.doOnCancel(bytes::discard);
		});
	}

	/**
	 * The bytes read so far: the first buffer's in an array of its size, the rest in blocks of at least
	 * {@value #BLOCK} bytes, so that a body sent a byte at a time costs no array per byte; joined at the end. Every
	 * array is counted in the lease (when there is one) before it is made.
	 */
	private static final class Bytes {

		/** The least room a block after the first array is made with. */
		private static final int BLOCK = 8 * 1024;

		private final long limit;

		private final Supplier<RelayFailure> tooLarge;

		private final BufferedBodies.Lease lease;

		/** Whether this is an answer: counted once, and never refused. */
		private final boolean answer;

		private final List<byte[]> chunks = new ArrayList<>(1);

		/** The bytes used of the last array of {@link #chunks}. */
		private int lastFill;

		private int size;

		/** The length of every array of {@link #chunks}. */
		private long made;

		/** What this read took from the lease and has not given back. */
		private long taken;

		/** This body's place among the bodies being read ({@link BufferedBodies#startReading}); 0 before its first bytes. */
		private long ticket;

		Bytes(long limit, Supplier<RelayFailure> tooLarge, BufferedBodies.Lease lease, boolean answer) {
			this.limit = limit;
			this.tooLarge = tooLarge;
			this.lease = lease;
			this.answer = answer;
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
				}
				int rest = count - copied;
				int length = rest == 0 ? 0 : chunks.isEmpty() ? rest : Math.max(rest, BLOCK);
				// an answer counts its arrays; a body to parse, its arrays and room to parse the bytes
				long counted = answer ? length : length + (long) count;
				if (answer) {
					force(counted);
				}
				else if (!take(counted)) {
					throw RelayFailures.relayOverloaded();
				}
				if (copied > 0) {
					buffer.read(chunks.get(chunks.size() - 1), lastFill, copied);
					lastFill += copied;
				}
				if (rest > 0) {
					byte[] chunk = new byte[length];
					buffer.read(chunk, 0, rest);
					chunks.add(chunk);
					made += length;
					lastFill = rest;
				}
				size += count;
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}

		byte[] toArray() {
			endReading();
			if (chunks.isEmpty()) {
				return EMPTY;
			}
			if (chunks.size() == 1 && lastFill == chunks.get(0).length) {
				return chunks.get(0);
			}
			// Joined: for a moment both the arrays and the whole are held. A body to parse makes the whole in the room
			// counted for its bytes, and the arrays it let go of become that room; an answer counts the whole.
			if (answer) {
				force(size);
			}
			byte[] whole = new byte[size];
			int at = 0;
			for (byte[] chunk : chunks) {
				int used = Math.min(chunk.length, size - at);
				System.arraycopy(chunk, 0, whole, at, used);
				at += used;
			}
			chunks.clear();
			give(answer ? made : made - size);
			return whole;
		}

		/** The read failed or was cancelled: what it took goes back to the budget. */
		void discard() {
			endReading();
			give(taken);
			chunks.clear();
		}

		private boolean take(long bytes) {
			if (lease == null) {
				return true;
			}
			if (ticket == 0) {
				ticket = lease.startReading();
			}
			if (!lease.take(bytes, ticket, taken)) {
				return false;
			}
			taken += bytes;
			return true;
		}

		/** This body is no longer being read: whole, failed or cancelled. */
		private void endReading() {
			if (ticket != 0) {
				lease.endReading(ticket, taken);
				ticket = 0;
			}
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
