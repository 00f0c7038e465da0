package dev.mcprelay.chain;

import java.time.Duration;

/**
 * Told of every interceptor call once its {@code Mono} has finished, for metrics. Called on the thread that finished
 * it; must not block or throw.
 */
public interface InterceptorObserver {

	/** Observes nothing. */
	InterceptorObserver NONE = (stage, interceptor, server, result, took) -> {
	};

	/**
	 * @param stage the stage's name
	 * @param interceptor the interceptor's {@code name()}
	 * @param server the upstream server's id
	 * @param result what the interceptor decided; {@link Verdict.Kind#REJECT} also for a failure of the interceptor
	 * @param took from the call until the {@code Mono} finished
	 */
	void observe(String stage, String interceptor, String server, Verdict.Kind result, Duration took);

	/**
	 * Told once at start-up of each interceptor of each stage, for each configured server it runs for, before any
	 * message: what counts its refusals can be there, at 0, before its first refusal. Observes nothing by default.
	 *
	 * @param stage the stage's name
	 * @param interceptor the interceptor's {@code name()}
	 * @param server the configured server's id
	 */
	default void runsFor(String stage, String interceptor, String server) {
	}

}
