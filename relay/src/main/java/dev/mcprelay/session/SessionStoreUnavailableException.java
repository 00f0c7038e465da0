package dev.mcprelay.session;

/**
 * The session store could not be read or written in time: Redis is down or slow, or the store was held past the call's
 * bound while the Sentinels switch its master ({@link StoreHeldException}).
 */
public final class SessionStoreUnavailableException extends RuntimeException {

	public SessionStoreUnavailableException(Throwable cause) {
		super("the session store could not be used: " + cause.getClass().getSimpleName(), cause);
	}

}
