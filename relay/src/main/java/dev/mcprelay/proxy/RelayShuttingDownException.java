package dev.mcprelay.proxy;

import dev.mcprelay.http.ReloadEnding;

/**
 * The relay ends what it still carries ({@link OpenStreams}): a stream, or an exchange whose answer has not come,
 * because the relay is shutting down, or because a reload withdrew what governed it ({@link #reloadReason()}: the
 * server removed, {@code server_removed}; the caller's access to it withdrawn, {@code access_withdrawn}; the legacy SSE
 * server, or the virtual server the exchange came through, changed, ending its sessions, {@code session_ended}).
 * Answered with {@link #failure} and recorded as the relay's doing.
 */
final class RelayShuttingDownException extends RuntimeException {

	static final String SERVER_REMOVED = ReloadEnding.SERVER_REMOVED;

	static final String ACCESS_WITHDRAWN = ReloadEnding.ACCESS_WITHDRAWN;

	static final String SESSION_ENDED = ReloadEnding.SESSION_ENDED;

	private final String reloadReason;

	/** The server the answer names, when it is not the relayed one's (a virtual server's); {@code null} else. */
	private final String server;

	RelayShuttingDownException() {
		this(null, null);
	}

	/**
	 * @param reloadReason why a reload ended it ({@link #SERVER_REMOVED}, {@link #ACCESS_WITHDRAWN},
	 * {@link #SESSION_ENDED}), or null
	 * @param server the server the answer names (the virtual server a member's exchange came through), or
	 * {@code null} for the relayed server's own
	 */
	RelayShuttingDownException(String reloadReason, String server) {
		super(reloadReason == null ? "the relay is shutting down" : "a reload ended it (" + reloadReason + ")", null,
				false, false);
		this.reloadReason = reloadReason;
		this.server = server;
	}

	/**
	 * The relay ends an exchange of {@code relayed} because a reload ended what governed it ({@code ending}), the
	 * answer naming the server {@code ending} names.
	 */
	static RelayShuttingDownException byReload(ReloadEnding ending, String relayed) {
		return new RelayShuttingDownException(ending.reason(), ending.server().equals(relayed) ? null : ending.server());
	}

	/** The server a reload's ending is counted under: the one the answer names ({@link #failure}). */
	String endedServer(String relayed) {
		return server != null ? server : relayed;
	}

	/** Why a reload ended it, or {@code null} when the relay is shutting down. */
	String reloadReason() {
		return reloadReason;
	}

	/** What the requests still waiting are answered, naming {@code relayed} unless a reload named another server. */
	RelayFailure failure(String relayed) {
		if (reloadReason == null) {
			return RelayFailures.relayShuttingDown(relayed);
		}
		String named = endedServer(relayed);
		return switch (reloadReason) {
			case SERVER_REMOVED -> RelayFailures.serverRemoved(named);
			case SESSION_ENDED -> RelayFailures.sessionEnded(named);
			default -> RelayFailures.accessWithdrawn(named);
		};
	}

}
