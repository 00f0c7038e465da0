package dev.mcprelay.intercept;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.Verdict;

/**
 * Told, from the serialized signals of one exchange, of what the upstream sends back for a client's POST and the
 * response stages read: each answer to a request that went upstream ({@link PendingRequests#answer}), and each other
 * message relayed on the response (a notification or a server request on the POST's event stream). Must not block
 * or throw.
 */
public interface AnswerWatcher {

	/** Watches nothing. */
	AnswerWatcher NONE = new AnswerWatcher() {
	};

	/** {@code answer} answers one of the POST's requests; called before the response stages see it. */
	default void answered(JsonRpcMessage answer) {
	}

	/**
	 * The upstream sent {@code message}, a notification or a request of its own, on the POST's response, before the
	 * response stages see it. The watcher may write into a server request's {@code params._meta} (its trace context),
	 * and says so.
	 *
	 * @return whether it changed the message, which is then re-encoded
	 */
	default boolean relayed(JsonRpcMessage message) {
		return false;
	}

	/**
	 * An interceptor chain of {@code stage} ran over {@code message} of the upstream's from {@code startNanos}
	 * ({@link System#nanoTime()}) and decided {@code verdict}.
	 */
	default void responseChainRan(JsonRpcMessage message, String stage, Verdict verdict, long startNanos) {
	}

}
