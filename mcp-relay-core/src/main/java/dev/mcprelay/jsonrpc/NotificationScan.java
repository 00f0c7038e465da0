package dev.mcprelay.jsonrpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * Tells, with Jackson's streaming parser and no tree, whether a message is a plain JSON-RPC notification: one object
 * with {@code "jsonrpc": "2.0"}, a non-empty string {@code method} that names no request of MCP
 * ({@link McpRequestMethods}), {@code params} an object or array when present, no {@code id}, {@code result} or
 * {@code error}, no key twice at its top level, and nothing after it. What the relay relays unread, when no
 * interceptor wants to see it, is only a notification it would relay after the full parse; anything else, malformed,
 * not a notification, a request without its id (which the relay drops), or a body that is not UTF-8 JSON text
 * ({@link JsonText}), answers {@code false} and takes the full parse.
 */
public final class NotificationScan {

	/** The relay's one factory: a small message's names in a bounded shared table, a large one's in none. */
	private static final JsonFactory FACTORY = JsonRpcParser.mapper().getFactory();

	private NotificationScan() {
	}

	public static boolean isPlainNotification(String json) {
		if (!JsonText.isUtf8(json)) {
			return false;
		}
		try (JsonParser parser = FACTORY.createParser(json)) {
			return scan(parser);
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** {@link #isPlainNotification(String)} of the UTF-8 bytes {@code bytes[offset, offset + length)}. */
	public static boolean isPlainNotification(byte[] bytes, int offset, int length) {
		if (!JsonText.isUtf8(bytes, offset, length)) {
			return false;
		}
		try (JsonParser parser = FACTORY.createParser(bytes, offset, length)) {
			return scan(parser);
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean scan(JsonParser parser) throws IOException {
		if (parser.nextToken() != JsonToken.START_OBJECT) {
			return false;
		}
		boolean version = false;
		boolean method = false;
		List<String> seen = new ArrayList<>(4);
		JsonToken token;
		while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
			String name = parser.currentName();
			if (seen.contains(name)) {
				return false;
			}
			seen.add(name);
			JsonToken value = parser.nextToken();
			switch (name) {
				case "jsonrpc" -> {
					if (value != JsonToken.VALUE_STRING || !"2.0".equals(parser.getText())) {
						return false;
					}
					version = true;
				}
				case "method" -> {
					if (value != JsonToken.VALUE_STRING || parser.getTextLength() == 0
							|| McpRequestMethods.isRequest(parser.getText())) {
						return false;
					}
					method = true;
				}
				case "params" -> {
					if (value != JsonToken.START_OBJECT && value != JsonToken.START_ARRAY) {
						return false;
					}
					parser.skipChildren();
				}
				case "id", "result", "error" -> {
					return false;
				}
				default -> parser.skipChildren();
			}
		}
		return token == JsonToken.END_OBJECT && parser.nextToken() == null && version && method;
	}

}
