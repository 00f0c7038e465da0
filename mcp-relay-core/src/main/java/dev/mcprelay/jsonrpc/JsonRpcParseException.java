package dev.mcprelay.jsonrpc;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;

/** A body that is not JSON ({@link #notJson()}) or is JSON but not a JSON-RPC 2.0 message. */
public class JsonRpcParseException extends Exception {

	private final boolean notJson;

	JsonRpcParseException(String message, boolean notJson) {
		super(message, null, false, false);
		this.notJson = notJson;
	}

	/** True when the body is not JSON at all (-32700); false when it is JSON of the wrong shape (-32600). */
	public boolean notJson() {
		return notJson;
	}

	public int errorCode() {
		return notJson ? JsonRpcErrorCodes.PARSE_ERROR : JsonRpcErrorCodes.INVALID_REQUEST;
	}

}
