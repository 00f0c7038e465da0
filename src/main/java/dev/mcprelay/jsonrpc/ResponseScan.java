package dev.mcprelay.jsonrpc;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Tells, with Jackson's streaming parser and no tree, whether an upstream body is exactly the answer to one request:
 * one object with {@code "jsonrpc": "2.0"}, the request's {@code id} (the same JSON value: {@code 1} and {@code "1"}
 * differ), exactly one of {@code result} (any JSON value) and {@code error} (an object), no {@code method}, no key
 * twice at any depth, and nothing after it. A body that passes is what {@link JsonRpcParser#parse} accepts as that
 * response, and the relay may pass it on unread when no interceptor wants to see it; anything else answers
 * {@code false} and takes the full parse. One difference, on purpose: numbers inside {@code result} are not
 * converted, so a number no decimal can hold (such as {@code 1e9999999999}) passes here, as the upstream wrote it.
 */
public final class ResponseScan {

	private ResponseScan() {
	}

	public static boolean answers(byte[] body, JsonNode id) {
		try (JsonParser parser = JsonRpcParser.mapper().getFactory().createParser(body)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return false;
			}
			boolean version = false;
			boolean idMatches = false;
			int outcomes = 0;
			JsonToken token;
			while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
				String name = parser.currentName();
				JsonToken value = parser.nextToken();
				switch (name) {
					case "jsonrpc" -> {
						if (value != JsonToken.VALUE_STRING || !"2.0".equals(parser.getText())) {
							return false;
						}
						version = true;
					}
					case "id" -> {
						if (!sameId(parser, value, id)) {
							return false;
						}
						idMatches = true;
					}
					case "result" -> {
						outcomes++;
						parser.skipChildren();
					}
					case "error" -> {
						if (value != JsonToken.START_OBJECT) {
							return false;
						}
						outcomes++;
						parser.skipChildren();
					}
					case "method" -> {
						return false;
					}
					default -> parser.skipChildren();
				}
			}
			return token == JsonToken.END_OBJECT && parser.nextToken() == null && version && idMatches
					&& outcomes == 1;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean sameId(JsonParser parser, JsonToken value, JsonNode id) throws IOException {
		if (id == null) {
			return false;
		}
		if (id.isTextual()) {
			return value == JsonToken.VALUE_STRING && id.textValue().equals(parser.getText());
		}
		return id.isIntegralNumber() && value == JsonToken.VALUE_NUMBER_INT
				&& id.bigIntegerValue().equals(parser.getBigIntegerValue());
	}

}
