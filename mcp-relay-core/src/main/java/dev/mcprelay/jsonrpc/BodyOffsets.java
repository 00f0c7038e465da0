package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;

/**
 * Where, in the bytes of a body, the tokens of a Jackson parser over all of it are. Jackson's byte parser reports byte
 * offsets; a large body is read through Jackson's UTF-8 {@code Reader} (its names kept in no table,
 * {@code BoundedNamesJsonFactory}), whose parser reports offsets in UTF-16 characters: those are turned into byte
 * offsets here by walking the body's UTF-8 forward from the last offset asked, so a pass over a body in order costs one
 * walk over it. The body is UTF-8 JSON text, with no byte-order mark ({@link JsonText}, which every parser of the
 * relay's asks first): Jackson reads no other encoding from it. Not thread-safe: one per parser ({@link #of(JsonParser, byte[])}), but for Jackson's byte parser,
 * whose offsets need no mapping and which shares one, so that a small body costs nothing more.
 */
final class BodyOffsets {

	/** The offsets of every parser that reads bytes: Jackson's own. */
	private static final BodyOffsets BYTES = new BodyOffsets(true, new byte[0]);

	private final byte[] body;

	private final boolean bytesRead;

	/** The last offset mapped: this character is at this byte. */
	private long charAt;

	private int byteAt;

	private BodyOffsets(boolean bytesRead, byte[] body) {
		this.body = body;
		this.bytesRead = bytesRead;
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
		return chars >= 0 ? byteOfChar(chars) : -1;
	}

	/** The byte at which UTF-16 character {@code chars} of the text starts (past the end: the body's length). */
	private long byteOfChar(long chars) {
		if (chars < charAt) {
			charAt = 0;
			byteAt = 0;
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

}
