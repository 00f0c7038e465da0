package dev.mcprelay.proxy;

/**
 * The relay ends what it still carries ({@link OpenStreams}): a stream, or an exchange whose answer has not come,
 * because the relay is shutting down, or because a reload removed the server it goes to ({@link #serverRemoved()}).
 * Answered with {@link #failure} and recorded as the relay's doing.
 */
final class RelayShuttingDownException extends RuntimeException {

	private final boolean serverRemoved;

	RelayShuttingDownException() {
		this(false);
	}

	RelayShuttingDownException(boolean serverRemoved) {
		super(serverRemoved ? "a reload removed the server" : "the relay is shutting down", null, false, false);
		this.serverRemoved = serverRemoved;
	}

	/** Whether a reload removed the server, rather than the relay shutting down. */
	boolean serverRemoved() {
		return serverRemoved;
	}

	/** What the requests still waiting are answered. */
	RelayFailure failure(String server) {
		return serverRemoved ? RelayFailures.serverRemoved(server) : RelayFailures.relayShuttingDown(server);
	}

}
