package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;

/**
 * Where, in the bytes of a body, the tokens of a Jackson parser over all of it are. Jackson's byte parser reports byte
 * offsets; a large body is read through Jackson's UTF-8 {@code Reader} (its names kept in no table,
 * {@code BoundedNamesJsonFactory}), whose parser reports offsets in UTF-16 characters, counted from after a byte-order
 * mark: those are turned into byte offsets here by walking the body's UTF-8 forward from the last offset asked, so a
 * pass over a body in order costs one walk over it. A body Jackson reads as UTF-16 or UTF-32 has no byte offsets here
 * ({@code -1}): no such body reaches a parser of the relay's, which refuses it first ({@link JsonText}). Not thread-safe: one per parser ({@link #of(JsonParser, byte[])}), but for Jackson's byte parser,
 * whose offsets need no mapping and which shares one, so that a small body costs nothing more.
 */
final class BodyOffsets {

	/** The offsets of every parser that reads bytes: Jackson's own. */
	private static final BodyOffsets BYTES = new BodyOffsets(true, new byte[0]);

	private final byte[] body;

	private final boolean bytesRead;

	/** Whether Jackson reads the body as UTF-8, so that its character offsets can be mapped to bytes. */
	private final boolean utf8;

	/** Where the body's text starts: after a UTF-8 byte-order mark, which Jackson's reader skips. */
	private final int textStart;

	/** The last offset mapped: this character is at this byte. */
	private long charAt;

	private int byteAt;

	private BodyOffsets(boolean bytesRead, byte[] body) {
		this.body = body;
		this.bytesRead = bytesRead;
		this.utf8 = readAsUtf8(body);
		this.textStart = body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB
				&& (body[2] & 0xFF) == 0xBF ? 3 : 0;
		this.byteAt = textStart;
	}

	/** @param parser Jackson's parser over all of {@code body}, from its first byte */
	static BodyOffsets of(JsonParser parser, byte[] body) {
		return parser instanceof UTF8StreamJsonParser ? BYTES : new BodyOffsets(false, body);
	}

	/**
	 * The byte offset of {@code location}, one of the parser's ({@code currentTokenLocation()} for where its token
	 * starts, {@code currentLocation()} for just past what it has read); {@code -1} when not known.
	 */
	long byteOffset(JsonLocation location) {
		if (bytesRead) {
			return location.getByteOffset();
		}
		long chars = location.getCharOffset();
		return utf8 && chars >= 0 ? byteOfChar(chars) : -1;
	}

	/** The byte at which UTF-16 character {@code chars} of the text starts (past the end: the body's length). */
	private long byteOfChar(long chars) {
		if (chars < charAt) {
			charAt = 0;
			byteAt = textStart;
		}
		while (charAt < chars && byteAt < body.length) {
			int b = body[byteAt] & 0xFF;
			int length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
			// a four-byte sequence is two UTF-16 characters (a surrogate pair)
			charAt += length == 4 ? 2 : 1;
			byteAt = Math.min(body.length, byteAt + length);
		}
		return charAt == chars ? byteAt : -1;
	}

	/**
	 * Whether Jackson reads {@code body} as UTF-8: it takes UTF-16 or UTF-32 only from a byte-order mark of theirs or
	 * a zero byte among the first four (JSON text starts with an ASCII character).
	 */
	private static boolean readAsUtf8(byte[] body) {
		if (body.length >= 2 && ((body[0] & 0xFF) == 0xFE && (body[1] & 0xFF) == 0xFF
				|| (body[0] & 0xFF) == 0xFF && (body[1] & 0xFF) == 0xFE)) {
			return false;
		}
		for (int i = 0; i < Math.min(4, body.length); i++) {
			if (body[i] == 0) {
				return false;
			}
		}
		return true;
	}

}
