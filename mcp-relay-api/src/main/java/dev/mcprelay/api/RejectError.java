package dev.mcprelay.api;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * An interceptor's refusal of a message, sent to the client as a JSON-RPC error. Return it with
 * {@code Mono.error(...)} (or {@link Outcome#reject(RejectError)}), or throw it.
 *
 * <p>{@link #code()}, {@link #getMessage()} and {@link #data()} are <b>user-facing</b>: they reach the MCP client
 * (and often the model behind it) verbatim. Keep internal details, stack traces and secrets out of them. Any other
 * exception an interceptor raises is not shown: it is logged and the client gets -32603 with a generic message
 * (see {@link #fromCause(Throwable)}).
 *
 * <p>Where the error goes depends on what was rejected: see the wire forms in docs/interceptors.md.
 */
public class RejectError extends RuntimeException {

	private final int code;

	private final transient JsonNode data;

	private final int httpStatus;

	private final Duration retryAfter;

	private final String logReason;

	private final String logDetail;

	/**
	 * @param code the JSON-RPC error code: -32000 for a policy refusal, -32602 for bad arguments, -32601 for a method
	 * that is not offered, or another JSON-RPC or MCP code
	 * @param message a short sentence for the user: what was refused and, when it helps, what to do instead
	 * @param data extra machine-readable fields (any JSON value, or {@code null} for none); converted with the relay's
	 * JSON mapper, so a {@code Map}, a record or a {@code JsonNode} all work
	 */
	public RejectError(int code, String message, Object data) {
		this(code, requireMessage(message), data == null ? null : JsonRpcJson.mapper().valueToTree(data), 0, null, null,
				null);
	}

	private RejectError(int code, String message, JsonNode data, int httpStatus, Duration retryAfter, String logReason,
			String logDetail) {
		super(message, null, false, false);
		this.code = code;
		this.data = data;
		this.httpStatus = httpStatus;
		this.retryAfter = retryAfter;
		this.logReason = logReason;
		this.logDetail = logDetail;
	}

	/**
	 * This error, with what the relay's operator reads of it and the client never does: the access log's
	 * {@code reason} and a {@code detail} (a policy's or a rule's name, say). A refusal that must not tell the client
	 * why (a tool a caller may not use is answered as one that does not exist) still tells the operator.
	 *
	 * @param reason a stable snake_case reason, e.g. {@code policy_denied}
	 * @param detail what refused, or {@code null}
	 */
	public RejectError withLogReason(String reason, String detail) {
		return new RejectError(code, getMessage(), data, httpStatus, retryAfter, reason, detail);
	}

	/** The access log's reason for this refusal ({@link #withLogReason}), or {@code null}. */
	public String logReason() {
		return logReason;
	}

	/** The access log's detail for this refusal ({@link #withLogReason}), or {@code null}. */
	public String logDetail() {
		return logDetail;
	}

	/**
	 * This error, answered with HTTP {@code status} and, when {@code retryAfter} is not null, a {@code Retry-After}
	 * header (whole seconds, rounded up) when it is the whole answer: a single message, or a batch of which nothing
	 * was forwarded. Within an answer that also carries the upstream's, the upstream's status stands and the error
	 * travels as one JSON-RPC answer (or SSE event) among the others.
	 *
	 * @param status a 4xx or 5xx status, e.g. 429 for a rate limit
	 */
	public RejectError withHttpStatus(int status, Duration retryAfter) {
		if (status < 400 || status > 599) {
			throw new IllegalArgumentException("A refusal's HTTP status is a 4xx or 5xx, not " + status);
		}
		return new RejectError(code, getMessage(), data, status, retryAfter, logReason, logDetail);
	}

	/** The HTTP status asked for by {@link #withHttpStatus}, or 0 for the stage's own. */
	public int httpStatus() {
		return httpStatus;
	}

	/** How long the client should wait before trying again, or {@code null}. */
	public Duration retryAfter() {
		return retryAfter;
	}

	/** {@link #retryAfter()} as {@code Retry-After} carries it: whole seconds, rounded up, at least 1. */
	public static long retryAfterSeconds(Duration wait) {
		long seconds = wait.toSeconds() + (wait.toNanosPart() > 0 ? 1 : 0);
		return Math.max(1, seconds);
	}

	public RejectError(int code, String message) {
		this(code, message, null);
	}

	/** A policy refusal (-32000). */
	public static RejectError policy(String message) {
		return new RejectError(JsonRpcErrorCodes.POLICY_REJECTED, message);
	}

	/** Arguments the relay will not pass on (-32602). */
	public static RejectError invalidParams(String message) {
		return new RejectError(JsonRpcErrorCodes.INVALID_PARAMS, message);
	}

	/** A method the relay does not offer to this client (-32601). */
	public static RejectError methodNotFound(String message) {
		return new RejectError(JsonRpcErrorCodes.METHOD_NOT_FOUND, message);
	}

	/**
	 * The error to send for {@code failure}: the first {@code RejectError} in its cause chain, else an internal error
	 * (-32603) whose message says nothing of the failure, which is for the logs only.
	 */
	public static RejectError fromCause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RejectError reject) {
				return reject;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return new RejectError(JsonRpcErrorCodes.INTERNAL_ERROR,
				"Internal error: the relay could not process this message");
	}

	public int code() {
		return code;
	}

	/** The error's {@code data}, or {@code null}. */
	public JsonNode data() {
		return data;
	}

	private static String requireMessage(String message) {
		if (message == null || message.isBlank()) {
			throw new IllegalArgumentException("A RejectError needs a message for the user");
		}
		return message;
	}

}
