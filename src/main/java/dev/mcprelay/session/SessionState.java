package dev.mcprelay.session;

import java.util.Set;

/**
 * What the relay keeps for one session.
 *
 * @param callerId who opened it ({@code null}: the front door asked nobody); only that caller may use it
 * @param exposedTools the tools this session's searches made visible ({@code tool-search})
 */
public record SessionState(String callerId, Set<String> exposedTools) {

	public SessionState {
		exposedTools = Set.copyOf(exposedTools);
	}

}
