package dev.mcprelay.transport.sse;

/**
 * What a bridged session may hold for its client, and whom it tells when that is reached: each waiting POST's answers
 * ({@link PendingPost#CAPACITY} messages) and the messages for the client's GET stream ({@link ClientOutbox#CAPACITY}),
 * each queue up to {@code maxBytes} ({@code mcp-relay.sessions.max-held-bytes}).
 *
 * @param maxBytes how many bytes of messages one queue may hold (one message larger than that passes alone)
 * @param onAnswerOverflow told each time a POST's answers overflowed (the POST then fails)
 * @param onStreamOverflow told each time a message for the GET stream was dropped because its queue was full
 */
public record HeldLimits(long maxBytes, Runnable onAnswerOverflow, Runnable onStreamOverflow) {

	/** Queues of {@code maxBytes} each, that tell nobody when full. */
	static HeldLimits of(long maxBytes) {
		return new HeldLimits(maxBytes, () -> {
		}, () -> {
		});
	}

}
