package dev.mcprelay.proxy;

/**
 * The relay is shutting down and ends what it still carries ({@link OpenStreams}): a stream, or an exchange whose
 * answer has not come. Answered with {@link RelayFailures#relayShuttingDown} and recorded as the relay's doing.
 */
final class RelayShuttingDownException extends RuntimeException {

	RelayShuttingDownException() {
		super("the relay is shutting down", null, false, false);
	}

}
