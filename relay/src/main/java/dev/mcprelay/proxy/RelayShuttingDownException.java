package dev.mcprelay.proxy;

/**
 * The relay ends what it still carries ({@link OpenStreams}): a stream, or an exchange whose answer has not come,
 * because the relay is shutting down, or because a reload withdrew what governed it ({@link #reloadReason()}: the
 * server removed, {@code server_removed}; the caller's access to it withdrawn, {@code access_withdrawn}; the legacy SSE
 * server changed, ending its bridged sessions, {@code session_ended}). Answered with
 * {@link #failure} and recorded as the relay's doing.
 */
final class RelayShuttingDownException extends RuntimeException {

	static final String SERVER_REMOVED = "server_removed";

	static final String ACCESS_WITHDRAWN = "access_withdrawn";

	static final String SESSION_ENDED = "session_ended";

	private final String reloadReason;

	RelayShuttingDownException() {
		this(null);
	}

	/** @param reloadReason why a reload ended it ({@link #SERVER_REMOVED}, {@link #ACCESS_WITHDRAWN}), or null */
	RelayShuttingDownException(String reloadReason) {
		super(reloadReason == null ? "the relay is shutting down" : "a reload ended it (" + reloadReason + ")", null,
				false, false);
		this.reloadReason = reloadReason;
	}

	/** Why a reload ended it, or {@code null} when the relay is shutting down. */
	String reloadReason() {
		return reloadReason;
	}

	/** What the requests still waiting are answered. */
	RelayFailure failure(String server) {
		if (reloadReason == null) {
			return RelayFailures.relayShuttingDown(server);
		}
		return switch (reloadReason) {
			case SERVER_REMOVED -> RelayFailures.serverRemoved(server);
			case SESSION_ENDED -> RelayFailures.transportFailure(server,
					RelayFailures.retiredSessionOfChangedServer(server));
			default -> RelayFailures.accessWithdrawn(server);
		};
	}

}
