package dev.mcprelay.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The upstream's successful answer to {@code initialize}: the server's capabilities, its instructions for the model
 * and its name and version. Each setter writes into the result as received, so everything it does not touch (the
 * protocol version, {@code _meta}, capability fields no MCP type models) is relayed unchanged.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization">MCP,
 * initialization</a>
 */
public final class InitializeResponse extends McpResponse {

	public InitializeResponse(CallContext context, ObjectNode message, McpRequest request) {
		super(context, message, request);
	}

	/** The protocol version the server chose. */
	public String protocolVersion() {
		return text(message().path("result"), "protocolVersion");
	}

	/** A copy of the server's capabilities, as received. */
	public ObjectNode capabilities() {
		JsonNode capabilities = message().path("result").path("capabilities");
		return capabilities instanceof ObjectNode object ? object.deepCopy() : message().objectNode();
	}

	/** Replaces the server's capabilities (a {@code JsonNode}, a {@code Map} or {@code McpSchema.ServerCapabilities}). */
	public void setCapabilities(Object capabilities) {
		liveResult().set("capabilities", toJson(capabilities));
		markChanged();
	}

	/** The server's instructions for the model, or {@code null}. */
	public String instructions() {
		return text(message().path("result"), "instructions");
	}

	/** Sets the instructions; {@code null} removes them. */
	public void setInstructions(String instructions) {
		if (instructions == null) {
			liveResult().remove("instructions");
		}
		else {
			liveResult().put("instructions", instructions);
		}
		markChanged();
	}

	/** The server's name and version, decoded; {@code null} when absent. */
	public McpSchema.Implementation serverInfo() {
		JsonNode info = message().path("result").get("serverInfo");
		return info == null ? null : decode(info, McpSchema.Implementation.class, problem -> new RejectError(
				dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes.INTERNAL_ERROR,
				"The upstream's initialize result holds a serverInfo that is not valid MCP"));
	}

	/** Replaces the server's name and version as the client sees them. */
	public void setServerInfo(McpSchema.Implementation serverInfo) {
		liveResult().set("serverInfo", toJson(serverInfo));
		markChanged();
	}

}
