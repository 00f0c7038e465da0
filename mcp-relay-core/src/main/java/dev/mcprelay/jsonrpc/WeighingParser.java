package dev.mcprelay.jsonrpc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;

/**
 * The parser Jackson builds a body's tree from ({@code ObjectMapper.readTree}): it charges each part of the tree to a
 * {@link HeapBudget} before the part is made, and decodes a string straight from the body's bytes.
 *
 * <p>A tree costs far more than its text: an empty object ({@code {}}, 3 bytes with its comma) is about 80 bytes of
 * heap, a decimal ({@code 0.1}) about 60, a string its text plus about 56. Measured on Jackson 2.21 (64-bit JVM,
 * compressed references), a body of 8 MB takes after parsing: 28 times its size as empty objects, 37 times as small
 * nested objects, 17 as empty arrays, 15 as decimals, 7 as integers, once its size as one long string or strings of
 * 4 KB. So each token is weighed as the part it becomes (the constants below, each at least what was measured), and the
 * weight is taken from the budget in chunks of {@value #CHUNK} bytes, before the parts are made.
 *
 * <p>Jackson decodes a string through buffers that hold it several times over (its segments of {@code char}, then a
 * {@code StringBuilder}, then the {@code String}: 4 times the text of one long ASCII string, 8 MB of it allocating
 * 32 MB). An ASCII string without escapes (a base64 document, a long text) is copied here instead from the body's bytes
 * into its {@code String} at once (8 MB allocating 8 MB); one with escapes or Latin-1 letters ({@code \n}, {@code \"},
 * {@code é}) is decoded here into one array of its length, then copied into its {@code String} (twice the text,
 * charged: the array for the moment it lives, {@link JsonStringText}); any other (a character past U+00FF) is decoded by
 * Jackson, its buffers charged for the moment they live. Jackson still reads past each string itself, checking it as
 * it always does.
 */
final class WeighingParser extends JsonParserDelegate {

	/** The most weight counted before it is taken from the budget. */
	static final int CHUNK = 64 * 1024;

	/** An {@code ObjectNode} and its {@code LinkedHashMap}. */
	static final int OBJECT = 80;

	/** The map's first table of 16 slots, made with its first field. */
	static final int FIRST_FIELD = 80;

	/** A map entry, its share of the table and of the table's growth, and the field name's {@code String}. */
	static final int FIELD = 96;

	/** An {@code ArrayNode} and its {@code ArrayList}. */
	static final int ARRAY = 48;

	/** The list's first array of 10 slots, made with its first element. */
	static final int FIRST_ELEMENT = 56;

	/** One slot of the list's array, with room to grow and the copy each growth makes for a moment. */
	static final int ELEMENT = 10;

	/** A {@code TextNode}, its {@code String} and the string's array, besides the text (at most one byte per byte). */
	static final int STRING = 56;

	/** An {@code IntNode} or {@code LongNode} (Jackson shares those of -1 to 10). */
	static final int INTEGER = 24;

	/** A {@code DecimalNode} or {@code BigIntegerNode} with its {@code BigDecimal} or {@code BigInteger}, besides digits. */
	static final int NUMBER = 64;

	/** What Jackson's decoding of one byte of a string takes for a moment, in its buffers. */
	static final int DECODE = 4;

	/** Digits an integer may have and still be an {@code IntNode} or {@code LongNode}. */
	private static final int LONG_DIGITS = 18;

	private final byte[] body;

	/** Where Jackson's tokens are in {@link #body}. */
	private final BodyOffsets offsets;

	private final HeapBudget budget;

	/** Weight counted and not yet taken from the budget. */
	private long pending;

	/** The current string, once decoded: Jackson asks for it once, anyone else gets the same. */
	private String decoded;

	/** @param parser Jackson's parser over all of {@code body}, from its first byte */
	WeighingParser(JsonParser parser, byte[] body, HeapBudget budget) {
		super(parser);
		this.body = body;
		this.offsets = BodyOffsets.of(parser, body);
		this.budget = budget;
	}

	@Override
	public JsonToken nextToken() throws IOException {
		JsonToken before = delegate.currentToken();
		JsonStreamContext container = delegate.getParsingContext();
		decoded = null;
		JsonToken token = delegate.nextToken();
		if (token != null) {
			long weight = weightOf(token, before);
			if (container != null && container.inArray() && !token.isStructEnd()) {
				weight += ELEMENT + (before == JsonToken.START_ARRAY ? FIRST_ELEMENT : 0);
			}
			charge(weight);
		}
		return token;
	}

	@Override
	public JsonToken nextValue() throws IOException {
		JsonToken token = nextToken();
		return token == JsonToken.FIELD_NAME ? nextToken() : token;
	}

	@Override
	public String getText() throws IOException {
		if (delegate.currentToken() != JsonToken.VALUE_STRING) {
			return delegate.getText();
		}
		if (decoded == null) {
			decoded = decodeString();
		}
		return decoded;
	}

	/** Takes what is still counted from the budget: the tree is whole. */
	void settle() {
		if (pending > 0) {
			long weight = pending;
			pending = 0;
			budget.take(weight);
		}
	}

	private long weightOf(JsonToken token, JsonToken before) throws IOException {
		return switch (token) {
			case START_OBJECT -> OBJECT;
			case START_ARRAY -> ARRAY;
			case FIELD_NAME -> FIELD + delegate.currentName().length()
					+ (before == JsonToken.START_OBJECT ? FIRST_FIELD : 0);
			case VALUE_NUMBER_INT -> {
				int digits = delegate.getTextLength();
				yield digits > LONG_DIGITS ? NUMBER + digits : digits <= 2 && isShared(delegate.getIntValue()) ? 0 : INTEGER;
			}
			case VALUE_NUMBER_FLOAT -> NUMBER + delegate.getTextLength();
			// a string is weighed when it is decoded; true, false and null are shared nodes
			default -> 0;
		};
	}

	/** Whether Jackson shares the node of integer {@code value} rather than making one. */
	private static boolean isShared(int value) {
		return value >= -1 && value <= 10;
	}

	/**
	 * The string the parser is at, from the body's bytes when it has no escapes. Its text is found between its quotes
	 * (a quote or a backslash never occurs inside a multi-byte UTF-8 sequence).
	 */
	private String decodeString() throws IOException {
		long at = offsets.byteOffset(delegate.currentTokenLocation());
		if (at < 0 || at >= body.length || body[(int) at] != '"') {
			// a body Jackson reads as UTF-16 or UTF-32 (it detects them), or a token not where it should start: leave it
			// to Jackson, weighed by what is left of the body
			return decodedByJackson(body.length - Math.max(0, at));
		}
		int start = (int) at + 1;
		int end = start;
		boolean ascii = true;
		boolean escapes = false;
		while (end < body.length && body[end] != '"') {
			byte b = body[end];
			if (b == '\\') {
				escapes = true;
				end += 2;
				continue;
			}
			ascii &= b >= 0;
			end++;
		}
		int length = Math.min(end, body.length) - start;
		// the empty string's node is shared
		charge(length == 0 ? 0 : STRING + length);
		if (end >= body.length) {
			return decodedByJackson(length);
		}
		if (!escapes && ascii) {
			return new String(body, start, length, StandardCharsets.ISO_8859_1);
		}
		// escapes or accented letters: decoded here into one array the length of the text, which lives a moment
		flush();
		budget.take(length);
		try {
			String text = JsonStringText.latin1(body, start, end);
			if (text != null) {
				return text;
			}
		}
		finally {
			budget.give(length);
		}
		return decodedByJackson(length);
	}

	private String decodedByJackson(long length) throws IOException {
		flush();
		budget.take(DECODE * length);
		String text;
		try {
			text = delegate.getText();
		}
		finally {
			budget.give(DECODE * length);
		}
		// a character past U+00FF makes every character of the String two bytes: more than its UTF-8 text, charged
		charge(Math.max(0, 2L * text.length() - length) * (latin1(text) ? 0 : 1));
		return text;
	}

	private static boolean latin1(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (text.charAt(i) > 0xFF) {
				return false;
			}
		}
		return true;
	}

	private void charge(long weight) {
		pending += weight;
		if (pending >= CHUNK) {
			flush();
		}
	}

	private void flush() {
		settle();
	}

}
