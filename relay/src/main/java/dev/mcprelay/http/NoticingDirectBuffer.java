package dev.mcprelay.http;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;

/**
 * A direct buffer holding a copy of some bytes (a piece of an array), which tells when it is released for the last time: Netty releases
 * what it was handed to write once the bytes are on the socket, and what it drops (a failed or cancelled write, a
 * closed connection) when it drops it, so that its owner learns when the bytes have left the relay
 * ({@link RelayResponse#wrap}). Direct, so that the transport writes it as it is: a heap buffer is copied into a
 * direct one as it is handed over, and released then, long before its bytes are written. Its memory is its own, not
 * the pool's, freed when it is released and, should some path drop it unreleased, by the garbage collector: never
 * leaked. {@code onReleased} runs once, on whichever thread releases it last.
 */
final class NoticingDirectBuffer extends UnpooledDirectByteBuf {

	private final Runnable onReleased;

	NoticingDirectBuffer(ByteBufAllocator alloc, byte[] bytes, int offset, int length, Runnable onReleased) {
		super(alloc, length, length);
		writeBytes(bytes, offset, length);
		this.onReleased = onReleased;
	}

	@Override
	protected void deallocate() {
		super.deallocate();
		onReleased.run();
	}

}
