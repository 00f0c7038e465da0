package dev.mcprelay.api.jsonrpc;

/**
 * The JSON-RPC 2.0 error codes the relay answers with.
 *
 * @see <a href="https://www.jsonrpc.org/specification#error_object">JSON-RPC 2.0, error object</a>
 */
public final class JsonRpcErrorCodes {

	/** Invalid JSON was received. */
	public static final int PARSE_ERROR = -32700;

	/** The JSON sent is not a valid JSON-RPC message, or the HTTP request around it is unacceptable. */
	public static final int INVALID_REQUEST = -32600;

	/** The method does not exist or is not available. */
	public static final int METHOD_NOT_FOUND = -32601;

	/** Invalid method parameters. */
	public static final int INVALID_PARAMS = -32602;

	/** Internal error, including an upstream that failed or misbehaved. */
	public static final int INTERNAL_ERROR = -32603;

	/**
	 * A header that mirrors a body field ({@code Mcp-Method}, {@code Mcp-Name}) says something else than the body
	 * (MCP 2026-07-28).
	 */
	public static final int HEADER_MISMATCH = -32020;

	/** A policy of the relay refused the message. */
	public static final int POLICY_REJECTED = -32000;

	private JsonRpcErrorCodes() {
	}

}
