package dev.mcprelay.intercept;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.Verdict;

/**
 * Told of every interceptor chain that ran over one of a client POST's messages, once it decided, on the thread that
 * finished it. Must not block or throw.
 */
public interface ChainWatcher {

	/** Watches nothing. */
	ChainWatcher NONE = (message, stage, verdict, startNanos) -> {
	};

	/**
	 * @param message the client's message
	 * @param stage the stage's name
	 * @param verdict what the chain decided ({@link Verdict#changedBy()} names an interceptor that changed it)
	 * @param startNanos {@link System#nanoTime()} when the chain started
	 */
	void chainRan(JsonRpcMessage message, String stage, Verdict verdict, long startNanos);

}
