package dev.mcprelay.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * An {@code initialize} request: the client's protocol version, capabilities and identity.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization">MCP,
 * lifecycle: initialization</a>
 */
public final class InitializeRequest extends McpRequest {

	public InitializeRequest(CallContext context, ObjectNode message) {
		super(context, message);
	}

	/** The protocol version the client asks for. */
	public String protocolVersion() {
		return text(message().path("params"), "protocolVersion");
	}

	/** The params decoded: protocol version, capabilities and client info. */
	public McpSchema.InitializeRequest toSchema() {
		return paramsAs(McpSchema.InitializeRequest.class);
	}

	/** The client's name and version, or {@code null} when it sent none. */
	public McpSchema.Implementation clientInfo() {
		return toSchema().clientInfo();
	}

}
