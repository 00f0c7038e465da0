package dev.mcprelay.security;

import org.springframework.security.access.AccessDeniedException;

/**
 * Why an authenticated caller may not use what it asked for (403): a stable {@link #reason()}, the server it asked
 * for, and for {@code insufficient_scope} the scopes that would do (RFC 6750's {@code scope} attribute).
 */
final class AccessRefusal extends AccessDeniedException {

	/** The exchange attribute a refusal is left in for {@link FrontDoorAnswers}, in Spring Security's chain. */
	static final String ATTRIBUTE = AccessRefusal.class.getName();

	private final String reason;

	private final String server;

	private final String scope;

	AccessRefusal(String reason, String server, String scope, String message) {
		super(message);
		this.reason = reason;
		this.server = server;
		this.scope = scope;
	}

	String reason() {
		return reason;
	}

	/** The configured server asked for, or {@code null}. */
	String server() {
		return server;
	}

	/** The scopes that would be accepted, space-separated, or {@code null}. */
	String scope() {
		return scope;
	}

}
