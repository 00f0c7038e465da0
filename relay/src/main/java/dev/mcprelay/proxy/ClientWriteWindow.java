package dev.mcprelay.proxy;

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
 * Cancelling the write stops the wait.
 */
final class ClientWriteWindow {

	/** The most bytes handed to the connection as one buffer, whose write shows the client's progress. */
	static final int SLICE = 64 * 1024;

	private ClientWriteWindow() {
	}

	/**
	 * {@code pieces} as buffers for {@code response}'s write, handed on no faster than the client takes them: at most
	 * {@code maxBytes} handed and not yet written (or one larger slice alone). {@code taken} runs each time a buffer has
	 * left the relay (on the thread that wrote it). Each subscription has a bound of its own. Every buffer discarded in
	 * the chain is released here once, those of {@code pieces}' own sources too: they must add no discard hook for
	 * buffers of their own, which Reactor would chain to this one (a buffer released twice).
	 */
	static Flux<DataBuffer> buffers(Flux<byte[]> pieces, RelayResponse response, long maxBytes, Runnable taken) {
		return Flux.defer(() -> {
			ByteBudget handed = new ByteBudget(maxBytes);
			return pieces
				.concatMap(piece -> Flux.range(0, (piece.length + SLICE - 1) / SLICE).concatMap(slice -> {
					int offset = slice * SLICE;
					int length = Math.min(SLICE, piece.length - offset);
					return handed.room(length).then(Mono.fromSupplier(() -> response.wrap(piece, offset, length, () -> {
						handed.release(length);
						taken.run();
					})));
				}, 0), 1)
				// the one hook for every buffer discarded in this chain, the pieces' sources' (upstream chunks) included
				.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
		});
	}

}
