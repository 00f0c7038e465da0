package dev.mcprelay.proxy;

import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import dev.mcprelay.http.RelayResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What one response has handed to its client's connection and the client has not taken yet, bounded by bytes
 * ({@code sessions.max-held-bytes}), so that a client that stops reading stops its body here: Reactor Netty's write
 * takes up to 128 pieces ahead of the socket whatever their size (1 MB events made 127 MB held for a client that read
 * nothing). It is also where the relay sees the client take what it was handed, and tells the stream's
 * {@link StreamWatch}: a client that reads slowly but steadily is taking its stream, however long the relay goes without
 * asking its upstream for more.
 *
 * <p>A piece is handed on in slices of at most {@value #SLICE} bytes, each once what was handed before it and not yet
 * written leaves room for it, or when nothing is (a slice larger than the bound passes alone); its room comes back, and
 * the client is seen to have taken it, when the connection has written it or dropped it ({@link RelayResponse#wrap}).
 * Slices, so that the client's progress shows every {@value #SLICE} bytes, also inside an event of many megabytes.
 * Written is taken: a client connection's socket holds little that is not sent yet
 * ({@code ReactorNettyServerConfiguration}, on Linux), not the megabytes the kernel would take ahead of the client.
 * While a slice waits, nothing more is asked of the body's source, so what the relay reads ahead behind it fills
 * ({@link EventReadAhead}) and the client's write clock runs ({@link StreamWatch}, {@code timeouts.client-write}).
 * Cancelling the write stops the wait. Every event stream the relay writes to a client goes through one: a
 * pass-through stream ({@link SseStreamRelay}) and a virtual server's ({@code dev.mcprelay.virtual.AnswerRelay}).
 */
public final class ClientWriteWindow {

	/** The most bytes handed to the connection as one buffer, whose write shows the client's progress. */
	public static final int SLICE = 64 * 1024;

	private ClientWriteWindow() {
	}

	/**
	 * Writes {@code body}, a whole answer whose {@code Content-Length} is set, to {@code response} no faster than the
	 * client takes it: as one buffer when it is one slice at most, else in slices as {@link #buffers}
	 * hands them, at most {@code maxBytes} handed and not yet written. Handed as one heap buffer, a body is copied by the
	 * transport into a direct buffer of its whole size the moment it is written, held off the heap until the client has
	 * taken the last byte: twelve clients reading 40 MB answers slowly held 480 MB of direct memory. The array stays on
	 * the heap until the write ends, so the write is timed by the client clock of the watch {@code watchOf} makes
	 * ({@link StreamWatch#watchClient}, {@code timeouts.client-write}) until the connection has written the last slice,
	 * not only until it was handed over: a client that takes nothing for it has {@code onStalled} run (which closes its
	 * connection, as for a stalled event stream: {@link OpenStreams#endForStalledClient}) and the write ends. An answer of
	 * one slice at most is written at once as one message, untimed: the socket takes it, and no watch is made.
	 */
	static Mono<Void> whole(RelayResponse response, byte[] body, long maxBytes, Supplier<StreamWatch> watchOf,
			Runnable onStalled) {
		if (body.length <= SLICE) {
			return response.write(Mono.just(response.bufferFactory().wrap(body)));
		}
		StreamWatch watch = watchOf.get();
		return response.write(watch.watchClient(Flux.defer(() -> {
			ByteBudget handed = new ByteBudget(maxBytes);
			// the last slices handed are the client's to take still: the write is done once they are written
			return slices(Flux.just(body), response, handed, watch::clientTook)
				.concatWith(handed.drained().then(Mono.empty()));
		})).onErrorResume(StreamWatch.ClientStalledException.class, stalled -> {
			onStalled.run();
			return Flux.empty();
		}).doOnDiscard(DataBuffer.class, DataBufferUtils::release));
	}

	/**
	 * {@code pieces} as buffers for {@code response}'s write, handed on no faster than the client takes them: at most
	 * {@code maxBytes} handed and not yet written (or one larger slice alone). {@code taken} runs each time a buffer has
	 * left the relay (on the thread that wrote it). Each subscription has a bound of its own. Every buffer discarded in
	 * the chain is released here once, those of {@code pieces}' own sources too: they must add no discard hook for
	 * buffers of their own, which Reactor would chain to this one (a buffer released twice).
	 */
	public static Flux<DataBuffer> buffers(Flux<byte[]> pieces, RelayResponse response, long maxBytes, Runnable taken) {
		return Flux.defer(() -> slices(pieces, response, new ByteBudget(maxBytes), taken))
			// the one hook for every buffer discarded in this chain, the pieces' sources' (upstream chunks) included
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
	}

	/** {@code pieces} in slices, each handed on once {@code handed} has room for it. */
	private static Flux<DataBuffer> slices(Flux<byte[]> pieces, RelayResponse response, ByteBudget handed,
			Runnable taken) {
		return pieces.concatMap(piece -> Flux.range(0, (piece.length + SLICE - 1) / SLICE).concatMap(slice -> {
			int offset = slice * SLICE;
			int length = Math.min(SLICE, piece.length - offset);
			return handed.room(length).then(Mono.fromSupplier(() -> response.wrap(piece, offset, length, () -> {
				handed.release(length);
				taken.run();
			})));
		}, 0), 1);
	}

}
