package dev.mcprelay.session;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;

/**
 * What the relay keeps for one session.
 *
 * @param callerId who opened it ({@code null}: the front door asked nobody); only that caller may use it
 * @param exposedTools the tools this session's searches made visible ({@code tool-search})
 * @param members for a virtual server's session, what it keeps per member it joined (its session with the member),
 * by member id; empty otherwise
 */
public record SessionState(String callerId, Set<String> exposedTools, Map<String, String> members) {

	public SessionState {
		exposedTools = Set.copyOf(exposedTools);
		// by member id, on every replica (a Map.copyOf's order changes from one JVM to the next)
		members = Collections.unmodifiableMap(new TreeMap<>(members));
	}

	public SessionState(String callerId, Set<String> exposedTools) {
		this(callerId, exposedTools, Map.of());
	}

}
