package dev.mcprelay.sse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next {@code \n} or {@code \r} in a byte array eight bytes at a time: each group is read as one
 * {@code long} and tested for both bytes at once with the "has a zero byte" arithmetic, so a long {@code data:} line
 * costs a few operations per eight bytes instead of two compares and a branch per byte.
 */
final class LineEndSearch {

	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

	private static final long ONES = 0x0101010101010101L;

	private static final long HIGHS = 0x8080808080808080L;

	private static final long LF = ONES * '\n';

	private static final long CR = ONES * '\r';

	private LineEndSearch() {
	}

	/** The index of the first {@code \n} or {@code \r} in {@code bytes[from, to)}, or {@code -1}. */
	static int next(byte[] bytes, int from, int to) {
		int i = from;
		for (; i <= to - Long.BYTES; i += Long.BYTES) {
			long word = (long) LONGS.get(bytes, i);
			// Each mask's lowest set bit marks its first matching byte exactly (the little-endian read puts the
			// first byte lowest; false marks only ever sit above a true one), so the union's lowest is the first of both.
			long found = zeroBytes(word ^ LF) | zeroBytes(word ^ CR);
			if (found != 0) {
				return i + (Long.numberOfTrailingZeros(found) >>> 3);
			}
		}
		for (; i < to; i++) {
			if (bytes[i] == '\n' || bytes[i] == '\r') {
				return i;
			}
		}
		return -1;
	}

	private static long zeroBytes(long word) {
		return (word - ONES) & ~word & HIGHS;
	}

}
