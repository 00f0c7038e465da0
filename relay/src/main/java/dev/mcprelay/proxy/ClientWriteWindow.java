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
 * nothing).
 *
 * <p>A piece is handed on once what was handed before it and not yet written leaves room for it, or when nothing is
 * (one piece larger than the bound passes alone); its room comes back when the connection has written it or dropped it
 * ({@link RelayResponse#wrap}). While a piece waits, nothing more is asked of the body's source, so what the relay reads
 * ahead behind it fills ({@link EventReadAhead}) and the client's write clock runs ({@link StreamWatch},
 * {@code timeouts.client-write}). Cancelling the write stops the wait.
 */
final class ClientWriteWindow {

	private ClientWriteWindow() {
	}

	/**
	 * {@code pieces} as buffers for {@code response}'s write, handed on no faster than the client takes them: at most
	 * {@code maxBytes} handed and not yet written (or one larger piece alone). Each subscription has a bound of its own.
	 */
	static Flux<DataBuffer> buffers(Flux<byte[]> pieces, RelayResponse response, long maxBytes) {
		return Flux.defer(() -> {
			ByteBudget handed = new ByteBudget(maxBytes);
			return pieces
				.concatMap(piece -> handed.room(piece.length)
					.then(Mono.fromSupplier(() -> response.wrap(piece, () -> handed.release(piece.length)))), 1)
				.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
		});
	}

}
