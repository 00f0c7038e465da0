package dev.mcprelay.policy;

import dev.mcprelay.live.ConfigurationSnapshot;

/**
 * Tools the relay itself offers on a server (tool search's {@code search_available_tools}): the relay's, not the
 * server's, so no policy or tool list hides or refuses them. What such a tool answers is the relay's to keep within
 * the caller's policies (tool search lists and returns only what the caller may use). Implemented by the feature that
 * offers the tool, so that the policy engine knows none of them.
 */
public interface RelayOwnTools {

	/**
	 * Whether {@code tool} on {@code server} is one the relay offers itself in {@code snapshot}, the configuration
	 * snapshot of the request that asks (the current one where {@code null}: a request the relay did not make): a
	 * request begun before a reload that turns the feature on is decided as its own snapshot says, where the tool is
	 * the server's and its policies decide it.
	 */
	boolean isRelayOwn(ConfigurationSnapshot snapshot, String server, String tool);

}
