package dev.mcprelay.proxy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.http.HttpStatus;

import dev.mcprelay.metrics.RelayOutcome;

/**
 * A failure the relay reports to its client as a JSON-RPC error. Everything in it is user-facing: the message says
 * what happened and what to do, and never carries internal details, stack traces or secrets.
 *
 * @see RelayFailures for every failure the relay can report
 */
public final class RelayFailure extends RuntimeException {

	private final HttpStatus status;

	private final int code;

	private final String reason;

	private final String server;

	private final RelayOutcome outcome;

	/**
	 * @param status the HTTP status when the failure is the whole answer
	 * @param code the JSON-RPC error code
	 * @param reason a stable snake_case identifier, sent as {@code error.data.reason}
	 * @param server the server id, or {@code null} when no server was resolved
	 * @param message the user-facing message
	 */
	RelayFailure(HttpStatus status, int code, String reason, String server, String message) {
		this(status, code, reason, server, message,
				status.is5xxServerError() ? RelayOutcome.FAILED : RelayOutcome.CLIENT_ERROR);
	}

	/** As the other constructor, with the outcome it is recorded as when that is neither failed nor client_error. */
	RelayFailure(HttpStatus status, int code, String reason, String server, String message, RelayOutcome outcome) {
		super(message, null, false, false);
		this.status = status;
		this.code = code;
		this.reason = reason;
		this.server = server;
		this.outcome = outcome;
	}

	public HttpStatus status() {
		return status;
	}

	public int code() {
		return code;
	}

	public String reason() {
		return reason;
	}

	/**
	 * Whether the upstream is at fault (it failed, timed out or misbehaved), rather than the client's request or the
	 * relay's configuration. Only these failures reach the error interceptors.
	 */
	public boolean isUpstreamFault() {
		return outcome == RelayOutcome.FAILED;
	}

	/**
	 * How the request this failure answers ended, for its meters and access-log line: {@link RelayOutcome#FAILED} for
	 * a 5xx (the upstream's fault, or the relay's), {@link RelayOutcome#CLIENT_ERROR} for a 4xx, and
	 * {@link RelayOutcome#OVERLOADED} for {@code relay_overloaded}, which is neither.
	 */
	public RelayOutcome outcome() {
		return outcome;
	}

	/**
	 * The fields sent as the JSON-RPC error's {@code data}: {@code reason}, then {@code server}, in that order on every
	 * replica ({@code Map.of}'s order changes from one JVM to the next, so replicas wrote one error two ways).
	 */
	public Map<String, String> data() {
		Map<String, String> data = new LinkedHashMap<>();
		data.put("reason", reason);
		if (server != null) {
			data.put("server", server);
		}
		return data;
	}

}
