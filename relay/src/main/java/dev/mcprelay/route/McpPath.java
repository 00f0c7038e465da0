package dev.mcprelay.route;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Reads a request path, exactly as it arrived (percent-encoded), as one of the MCP endpoint's forms, once: the only
 * place in the relay that parses a path for the MCP endpoint.
 * <ul>
 * <li>{@code /mcp}: the default server ({@link Form#DEFAULT});</li>
 * <li>{@code /mcp/{id}} and {@code /{id}/mcp}: server {@code id} ({@link Form#MCP_FIRST}, {@link Form#MCP_LAST}). The
 * literal {@code mcp} segments stand as they are; percent-encoding in {@code id} is decoded exactly once, as UTF-8, and
 * a decoded id holding {@code /}, {@code \}, {@code %}, {@code ;}, a control character, or that is {@code .} or
 * {@code ..}, is ambiguous;</li>
 * <li>anything else that a lenient router could still read as one of those forms is {@link Form#AMBIGUOUS}: after
 * decoding percent-encoding (repeatedly), reading {@code \} as {@code /}, dropping {@code ;} parameters and what follows
 * a NUL in each segment, resolving {@code .} and {@code ..} segments, collapsing empty segments (doubled and trailing
 * slashes) it would be {@code /mcp}, {@code /mcp/x} or {@code /x/mcp}. Examples: {@code /%6dcp/acme},
 * {@code /acme/m%63p}, {@code /mcp/./acme}, {@code //mcp/acme}, {@code /mcp;v=1/acme}, {@code /mcp/acme/}.</li>
 * <li>every other path is {@link Form#OTHER}: not the MCP endpoint's (case counts: {@code /MCP/acme} is another
 * path, as it is to Spring's own routing).</li>
 * </ul>
 * A pure function of the path; it knows no server.
 *
 * @param form which form the path has
 * @param segment the decoded id for {@link Form#MCP_FIRST} and {@link Form#MCP_LAST}, else {@code null}
 * @param problem for {@link Form#AMBIGUOUS}, what is wrong, in words for the client; else {@code null}
 */
public record McpPath(Form form, String segment, String problem) {

	private static final String MCP = "mcp";

	/** At most this many rounds of percent-decoding are tried when looking for a path that only hides its form. */
	private static final int LENIENT_DECODING_ROUNDS = 4;

	private static final McpPath DEFAULT = new McpPath(Form.DEFAULT, null, null);

	private static final McpPath OTHER_PATH = new McpPath(Form.OTHER, null, null);

	/** The forms a path can have. */
	public enum Form {

		/** {@code /mcp}. */
		DEFAULT,

		/** {@code /mcp/{id}}. */
		MCP_FIRST,

		/** {@code /{id}/mcp}. */
		MCP_LAST,

		/** Not an MCP endpoint path as it stands, but one once leniently normalized: refused. */
		AMBIGUOUS,

		/** Any other path. */
		OTHER

	}

	/** The form of {@code rawPath}, the path as received (no query), within the application. */
	public static McpPath parse(String rawPath) {
		if (rawPath.equals("/mcp")) {
			return DEFAULT;
		}
		if (rawPath.startsWith("/mcp/")) {
			String segment = rawPath.substring("/mcp/".length());
			if (isPlainSegment(segment)) {
				return identified(Form.MCP_FIRST, segment);
			}
		}
		if (rawPath.endsWith("/mcp") && rawPath.length() > "/mcp".length() + 1 && rawPath.charAt(0) == '/') {
			String segment = rawPath.substring(1, rawPath.length() - "/mcp".length());
			if (isPlainSegment(segment)) {
				return identified(Form.MCP_LAST, segment);
			}
		}
		if (leniently(rawPath)) {
			return ambiguous("The path is not in the plain form of an MCP endpoint (/mcp, /mcp/{server} or "
					+ "/{server}/mcp): it has percent-encoding in 'mcp', '.' or '..' segments, empty segments, "
					+ "';' parameters, backslashes or a trailing slash.");
		}
		return OTHER_PATH;
	}

	/** One segment with nothing in it that makes it two, or a segment with parameters. */
	private static boolean isPlainSegment(String segment) {
		return !segment.isEmpty() && segment.indexOf('/') < 0 && segment.indexOf(';') < 0 && segment.indexOf('\\') < 0;
	}

	private static McpPath identified(Form form, String raw) {
		String id = raw.indexOf('%') < 0 ? raw : decodeOnce(raw);
		if (id == null) {
			return ambiguous("The server id in the path is not well-formed percent-encoded UTF-8.");
		}
		if (id.equals(".") || id.equals("..") || !isIdText(id)) {
			return ambiguous("The server id in the path holds characters no server id has ('/', '\\', '%', ';', "
					+ "control characters) or is a dot segment.");
		}
		return new McpPath(form, id, null);
	}

	private static boolean isIdText(String id) {
		for (int i = 0; i < id.length(); i++) {
			char c = id.charAt(i);
			if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '%' || c == ';') {
				return false;
			}
		}
		return true;
	}

	private static McpPath ambiguous(String problem) {
		return new McpPath(Form.AMBIGUOUS, null, problem);
	}

	/**
	 * Whether a lenient router would read {@code rawPath} as an MCP endpoint path (see the class comment).
	 */
	private static boolean leniently(String rawPath) {
		String path = rawPath;
		for (int round = 0; round < LENIENT_DECODING_ROUNDS && path.indexOf('%') >= 0; round++) {
			path = decodeLeniently(path);
		}
		Deque<String> segments = new ArrayDeque<>();
		for (String part : path.replace('\\', '/').split("/", -1)) {
			String segment = part;
			int cut = firstOf(segment, ';', '\0');
			if (cut >= 0) {
				segment = segment.substring(0, cut);
			}
			if (segment.isEmpty() || segment.equals(".")) {
				continue;
			}
			if (segment.equals("..")) {
				segments.pollLast();
				continue;
			}
			segments.addLast(segment);
		}
		return switch (segments.size()) {
			case 1 -> MCP.equals(segments.peekFirst());
			case 2 -> MCP.equals(segments.peekFirst()) || MCP.equals(segments.peekLast());
			default -> false;
		};
	}

	private static int firstOf(String text, char a, char b) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == a || c == b) {
				return i;
			}
		}
		return -1;
	}

	/** Strict percent-decoding as UTF-8; {@code null} when an escape or the bytes are malformed. */
	static String decodeOnce(String text) {
		byte[] bytes = new byte[text.length()];
		int length = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '%') {
				if (i + 2 >= text.length()) {
					return null;
				}
				int high = Character.digit(text.charAt(i + 1), 16);
				int low = Character.digit(text.charAt(i + 2), 16);
				if (high < 0 || low < 0) {
					return null;
				}
				bytes[length++] = (byte) (high << 4 | low);
				i += 2;
			}
			else if (c < 0x80) {
				bytes[length++] = (byte) c;
			}
			else {
				return null;
			}
		}
		try {
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes, 0, length))
				.toString();
		}
		catch (CharacterCodingException ex) {
			return null;
		}
	}

	/** Percent-decoding that keeps what it cannot decode, as a forgiving router would. */
	private static String decodeLeniently(String text) {
		StringBuilder out = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '%' && i + 2 < text.length()) {
				int high = Character.digit(text.charAt(i + 1), 16);
				int low = Character.digit(text.charAt(i + 2), 16);
				if (high >= 0 && low >= 0) {
					out.append((char) (high << 4 | low));
					i += 2;
					continue;
				}
			}
			out.append(c);
		}
		return out.toString();
	}

}
