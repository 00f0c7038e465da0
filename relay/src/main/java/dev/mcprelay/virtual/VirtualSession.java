package dev.mcprelay.virtual;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One client session of a virtual server, as the store keeps it.
 *
 * @param id the id the client holds ({@code Mcp-Session-Id})
 * @param members the session with each member it joined, by member id
 * @param initialize the client's {@code initialize} request, sent again to a member that joins later
 * @param exposedTools the tools this session's searches made visible ({@code tool-search})
 * @param loggingLevel the level the client last asked for with {@code logging/setLevel}, sent to a member that joins
 * later or again; {@code null} when it asked for none
 * @param terms what the session was opened under ({@link VirtualSessionTerms}); {@code null} for a session stored
 * without them
 * @param announced the lists ({@link MemberLists#LISTS}) whose capability the session's {@code initialize} result
 * announced to the client; {@code null} for a session stored without them
 */
record VirtualSession(String id, Map<String, MemberSession> members, ObjectNode initialize, Set<String> exposedTools,
		String loggingLevel, String terms, Set<String> announced) {

	VirtualSession {
		// in the members' order of id, on every replica (a Map.copyOf's order changes from one JVM to the next): the
		// order of the DELETEs that end them
		members = Collections.unmodifiableMap(new TreeMap<>(members));
		exposedTools = Set.copyOf(exposedTools);
		announced = announced == null ? null : Set.copyOf(announced);
	}

	@Override
	public String toString() {
		return "VirtualSession[<redacted>, " + members.keySet() + "]";
	}

}
