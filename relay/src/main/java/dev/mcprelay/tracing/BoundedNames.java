package dev.mcprelay.tracing;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tool and prompt names a server's meters may carry as tag values: a name becomes one once the server answered
 * a request for it with a result (an invented name is answered with an error, so a client cannot mint series), and
 * at most {@value #MAX_PER_SERVER} per server; any other name is {@value McpAttributes#OTHER}. Thread-safe.
 */
final class BoundedNames {

	static final int MAX_PER_SERVER = 100;

	private final Map<String, Set<String>> byServer = new ConcurrentHashMap<>();

	/** The tag value for {@code name} of {@code server}; {@code ""} when there is no name. */
	String tagValue(String server, String name, boolean answeredWithResult) {
		if (name == null) {
			return "";
		}
		Set<String> known = byServer.computeIfAbsent(server, id -> ConcurrentHashMap.newKeySet());
		if (known.contains(name)) {
			return name;
		}
		if (answeredWithResult && known.size() < MAX_PER_SERVER && known.add(name)) {
			return name;
		}
		return McpAttributes.OTHER;
	}

}
