package dev.mcprelay.security;

import org.springframework.http.HttpStatus;
import org.springframework.security.core.AuthenticationException;

/**
 * Why the front door did not accept a request's credentials, in the words the client reads: a stable
 * {@link #reason()} ({@code error.data.reason} and the {@code reason} tag of {@code mcp.relay.auth.failures}) and
 * a message that never quotes the credential.
 */
final class FrontDoorException extends AuthenticationException {

	private final String reason;

	private final HttpStatus status;

	private FrontDoorException(HttpStatus status, String reason, String message) {
		super(message);
		this.status = status;
		this.reason = reason;
	}

	/** The credentials are missing, malformed or not valid: 401. */
	static FrontDoorException unauthenticated(String reason, String message) {
		return new FrontDoorException(HttpStatus.UNAUTHORIZED, reason, message);
	}

	String reason() {
		return reason;
	}

	HttpStatus status() {
		return status;
	}

}
