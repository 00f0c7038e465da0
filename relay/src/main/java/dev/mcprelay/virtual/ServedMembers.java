package dev.mcprelay.virtual;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;

/**
 * Whether the configuration current now still has a member of a merged session ({@link MergedSession}) in the
 * session's virtual server, and on which settings: what a member stream that outlives a reload asks before it asks the
 * member anything again ({@link MemberStream}: opening its stream again, joining it again when it lost its session).
 * Reads the current snapshot, never the one the session began on; no state of its own.
 */
@Component
class ServedMembers {

	private final VirtualServers servers;

	private final LiveConfiguration configuration;

	ServedMembers(VirtualServers servers, LiveConfiguration configuration) {
		this.servers = servers;
		this.configuration = configuration;
	}

	/** The snapshot current now: what a member joined again by a session's stream joins on. */
	ConfigurationSnapshot current() {
		return configuration.current();
	}

	/**
	 * Whether {@code member} is still a member of {@code session}'s virtual server in the configuration current now,
	 * on the settings of the client's latest GET (its origin's snapshot, {@link MergedSession#origin}): a member stream
	 * is opened, or opened again, only then ({@link MemberStream}). A reload that removed the member's server, or the
	 * virtual server or its version, ends the stream for good; so does one that changed how the member's server is
	 * reached (its url, headers, credentials: {@link ServerProperties#sameConnectionAs}) since that GET: a stream
	 * already open finishes on the settings it began with, but opening it again is a new request, which the old
	 * settings (an old address, a revoked secret) must not make. The client's next GET opens it on the new ones. A
	 * reload that changed only who may use the server ({@code allowed-scopes}) or what the relay does with it is not
	 * one: the member given back to a token by its {@code allowed-scopes} is opened as one given back by an API key's
	 * {@code servers} (review 44n N-M2); who may read it is the GET's access to judge ({@link MergedGetAccess}).
	 */
	boolean stillServes(MergedSession session, String member) {
		ConfigurationSnapshot current = configuration.current();
		ServerProperties began = session.origin().configuration().properties().servers().get(member);
		return stillHas(current, session, member)
				&& (began == null || began.sameConnectionAs(current.properties().servers().get(member)));
	}

	/**
	 * Whether {@code member} is still a member of {@code session}'s virtual server in the configuration current now,
	 * whatever its settings: the answer to a GET sent before a reload that changed the member's server is a stream
	 * already open, read on the settings it began with ({@link #stillServes} decides only whether to open one again).
	 */
	boolean stillHas(MergedSession session, String member) {
		return stillHas(configuration.current(), session, member);
	}

	private boolean stillHas(ConfigurationSnapshot current, MergedSession session, String member) {
		VirtualServer now = servers.find(current, session.server().id());
		return now != null && now.version() == session.server().version() && now.members().contains(member);
	}

}
