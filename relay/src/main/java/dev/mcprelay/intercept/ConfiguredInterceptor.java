package dev.mcprelay.intercept;

import dev.mcprelay.api.Interceptor;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.live.SnapshotCompilation;

/**
 * One of the relay's own interceptors whose work for a server is set by a configuration snapshot (the policies, the
 * rate-limit rules, tool search, argument rules): it joins a server's chain of a stage only in the snapshots whose
 * compiled configuration gives it something to do there ({@link InterceptorChains} compiles the chains per snapshot).
 * A server nothing governs then has empty chains and pays nothing for the feature; a reload that adds a rule for it
 * gives it the interceptor from its next request.
 */
public interface ConfiguredInterceptor extends Interceptor {

	/**
	 * Whether this interceptor has anything to do at {@code stage} for the configured server {@code server} in the
	 * snapshot being compiled: asked once per snapshot, server and stage, on the thread that compiles it (never an event
	 * loop); it reads its own compiled part from {@code compilation}. It must not fail.
	 */
	boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage);

	/** Every server: what it does is decided per snapshot ({@link #appliesTo(SnapshotCompilation, String, Stage)}). */
	@Override
	default boolean appliesTo(String server) {
		return true;
	}

}
