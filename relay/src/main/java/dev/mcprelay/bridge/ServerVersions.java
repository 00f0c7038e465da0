package dev.mcprelay.bridge;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.jsonrpc.ProtocolVersions;

/**
 * The MCP protocol versions one Streamable HTTP server speaks, as far as the relay knows them: pinned by
 * {@code mcp-relay.servers.<id>.protocol-versions}, or else learnt from the server's own answers (the versions a
 * refused {@code initialize} names in {@code error.data.supported}, the {@code supportedVersions} of its
 * {@code server/discover}) and remembered for the server, on this replica, until the relay stops. Pinned versions are
 * never replaced by learnt ones. Thread-safe: read on every bridged request, written when an answer teaches something.
 */
public final class ServerVersions {

	private static final Logger log = LoggerFactory.getLogger(ServerVersions.class);

	/** What a version looks like on the wire; anything else a server names is not remembered. */
	private static final Pattern VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

	/** The most versions remembered for one server, whatever it names. */
	static final int MAX_VERSIONS = 16;

	private final String serverId;

	private final boolean pinned;

	private volatile Set<String> versions;

	/** @param pinned the server's {@code protocol-versions}, empty when the relay is to learn them */
	public ServerVersions(String serverId, List<String> pinned) {
		this.serverId = serverId;
		this.pinned = !pinned.isEmpty();
		this.versions = Set.copyOf(pinned);
	}

	/** The versions known now: pinned, learnt, or none yet. */
	public Set<String> known() {
		return versions;
	}

	/**
	 * Whether a client speaking {@code clientVersion} needs the bridge to this server: the server's versions are known
	 * and none of them belongs to the client's generation. Unknown versions bridge nothing.
	 */
	public boolean bridges(String clientVersion) {
		Set<String> known = versions;
		return !known.isEmpty() && !ProtocolVersions.sameEraIn(clientVersion, known);
	}

	/**
	 * Whether the operator pinned versions of {@code clientVersion}'s generation: a client of that generation is then
	 * relayed as it speaks, and a session the bridge gave it under other versions (before a reload pinned these)
	 * cannot continue ({@code SessionBridge}).
	 */
	public boolean pinnedToEraOf(String clientVersion) {
		return pinned && ProtocolVersions.sameEraIn(clientVersion, versions);
	}

	/**
	 * Whether {@code pinned} (a server's {@code protocol-versions}) names a version of the session era (2025-11-25 and
	 * before): the sessions the bridge gave 2025 clients of the server cannot continue under such a pin.
	 */
	public static boolean pinsSessionEra(List<String> pinned) {
		return pinned.stream().anyMatch(version -> !ProtocolVersions.isPerRequest(version));
	}

	/**
	 * Remembers the versions an answer of the server named (ignored when they are pinned): only strings shaped as
	 * versions, at most {@value #MAX_VERSIONS}. A change is logged once, at INFO.
	 */
	public void learn(Collection<String> named) {
		if (pinned || named == null) {
			return;
		}
		Set<String> learnt = new TreeSet<>();
		for (String version : named) {
			if (version != null && VERSION.matcher(version).matches() && learnt.size() < MAX_VERSIONS) {
				learnt.add(version);
			}
		}
		if (learnt.isEmpty() || learnt.equals(versions)) {
			return;
		}
		versions = Set.copyOf(learnt);
		log.info("MCP server '{}' speaks protocol versions {} (learnt from its answer)", serverId, learnt);
	}

}
