package dev.mcprelay.demo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The demo server's tool definitions and text results. */
final class DemoTools {

	private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

	private DemoTools() {
	}

	static ObjectNode list() {
		ObjectNode result = NODES.objectNode();
		ArrayNode tools = result.putArray("tools");
		ObjectNode echo = tools.addObject().put("name", "echo").put("description", "Returns the message it is given");
		ObjectNode echoSchema = echo.putObject("inputSchema").put("type", "object");
		echoSchema.putObject("properties").putObject("message").put("type", "string");
		echoSchema.putArray("required").add("message");
		ObjectNode countdown = tools.addObject()
			.put("name", "countdown")
			.put("description", "Counts down, streaming a progress notification per step (pass _meta.progressToken)");
		ObjectNode countdownSchema = countdown.putObject("inputSchema").put("type", "object");
		countdownSchema.putObject("properties").putObject("from").put("type", "integer").put("minimum", 1).put("maximum", 20);
		return result;
	}

	static ObjectNode text(String text, boolean isError) {
		ObjectNode result = NODES.objectNode();
		result.putArray("content").addObject().put("type", "text").put("text", text);
		if (isError) {
			result.put("isError", true);
		}
		return result;
	}

}
