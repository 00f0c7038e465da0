package dev.mcprelay.session;

/** The session store could not be read or written in time (Redis is down or slow). */
public final class SessionStoreUnavailableException extends RuntimeException {

	public SessionStoreUnavailableException(Throwable cause) {
		super("the session store did not answer: " + cause.getClass().getSimpleName(), cause);
	}

}
