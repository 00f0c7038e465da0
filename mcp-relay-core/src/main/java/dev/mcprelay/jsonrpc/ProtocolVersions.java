package dev.mcprelay.jsonrpc;

import java.util.Collection;
import java.util.List;

/**
 * The MCP protocol versions the relay knows, and the generation each belongs to: the session era (2024-11-05 ..
 * 2025-11-25: {@code initialize} negotiates one version for a session) or the per-request era (2026-07-28: no
 * session, each request names its version). Two ends of one generation negotiate between themselves; only ends of
 * different generations that share no version need the bridge.
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle">MCP 2026-07-28 lifecycle</a>
 */
public final class ProtocolVersions {

	/** The newest version of the per-request era, which the bridge speaks to a 2026-only server. */
	public static final String PER_REQUEST = "2026-07-28";

	/** The newest version of the session era, which the bridge offers a 2025 client that asked for one it does not know. */
	public static final String LATEST_SESSION = "2025-11-25";

	/** Every version the relay knows, oldest first; {@code servers.<id>.protocol-versions} may name only these. */
	public static final List<String> KNOWN = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
			PER_REQUEST);

	private ProtocolVersions() {
	}

	/** Whether {@code version} is one the relay knows ({@link #KNOWN}). */
	public static boolean isKnown(String version) {
		return KNOWN.contains(version);
	}

	/**
	 * Whether {@code version} belongs to the per-request era (2026-07-28 and later); the comparison is by date, so a
	 * later revision the relay does not know yet counts with its generation.
	 */
	public static boolean isPerRequest(String version) {
		return version != null && version.compareTo(PER_REQUEST) >= 0;
	}

	/** Whether any of {@code versions} belongs to the same era as {@code version}. */
	public static boolean sameEraIn(String version, Collection<String> versions) {
		boolean perRequest = isPerRequest(version);
		return versions.stream().anyMatch(known -> isPerRequest(known) == perRequest);
	}

	/** The session-era version the bridge answers a 2025 client that asked for {@code requested}. */
	public static String sessionVersionFor(String requested) {
		return requested != null && isKnown(requested) && !isPerRequest(requested) ? requested : LATEST_SESSION;
	}

}
