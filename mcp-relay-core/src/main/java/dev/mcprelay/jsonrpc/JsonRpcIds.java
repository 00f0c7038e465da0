package dev.mcprelay.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * When two JSON-RPC ids are one id: as the upstream may see them, not as they are written. Many MCP servers read
 * numbers as IEEE 754 doubles (JavaScript's {@code JSON.parse}, and every parser that does the same), so an integer
 * past 2^53 reaches them rounded: {@code 9007199254740993} and {@code 9007199254740992} are one number to such a
 * server, and it answers both under {@code 9007199254740992}. The relay compares numeric ids by the double they read
 * as, so that no rounding upstream can make two requests one: a batch may not hold two requests whose ids compare
 * equal ({@link JsonRpcParser#parseClientBody}), and an answer under the rounded id is the answer of the request that
 * had it. A string id is its text; {@code 1} and {@code "1"} stay two ids, as they are to every server.
 *
 * @see <a href="https://www.jsonrpc.org/specification#request_object">JSON-RPC 2.0, the request object's id</a>
 */
public final class JsonRpcIds {

	/** The largest integer every double holds exactly: 2^53. */
	private static final double EXACT = 9007199254740992d;

	private JsonRpcIds() {
	}

	/**
	 * The key two ids share exactly when they are one id: {@code s:} and the text of a string; {@code n:} and the
	 * double of a number (written as an integer while it is a whole number within 2^53, so {@code 2^53 + 1}, which
	 * rounds to {@code 2^53}, has the key of {@code 2^53}, and {@code 1.5} stays apart from {@code 1}); anything else
	 * (a {@code null} id of an error) its JSON.
	 */
	public static String key(JsonNode id) {
		if (id.isTextual()) {
			return "s:" + id.textValue();
		}
		if (id.isInt()) {
			return "n:" + id.intValue();
		}
		if (id.isNumber()) {
			double value = id.doubleValue();
			return Math.abs(value) <= EXACT && value == Math.rint(value) ? "n:" + (long) value : "n:" + value;
		}
		return "j:" + id;
	}

	/**
	 * Whether {@code one} and {@code other} are one id, as {@link #key} compares them; without making the keys of two
	 * strings or two integers of an {@code int} (every answer's id is compared so, once per message).
	 */
	public static boolean same(JsonNode one, JsonNode other) {
		if (one == null || other == null) {
			return false;
		}
		if (one.isTextual() || other.isTextual()) {
			// a string's key is its text behind "s:", which no other key starts with
			return one.isTextual() && other.isTextual() && one.textValue().equals(other.textValue());
		}
		if (one.isInt() && other.isInt()) {
			return one.intValue() == other.intValue();
		}
		return key(one).equals(key(other));
	}

}
