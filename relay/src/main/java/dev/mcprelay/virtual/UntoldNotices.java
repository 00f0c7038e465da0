package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.config.RelayProperties;

/**
 * What the client is to be told of a member joined again ({@link MemberJoins}: a warning, {@code list_changed}) when
 * the request that joined it had no answer to carry it and no GET stream of the session's took it: a client's
 * notification, answered 202 with no body. Kept per virtual session and member until the next request to that member
 * on this replica takes it, to tell the client before its answer ({@link MemberRequests}), as the joining request
 * would have; for at most the sessions' {@code idle-timeout}, and for at most {@value #MAX_SESSIONS} sessions and
 * members, the oldest forgotten first (notices are a few hundred bytes each, a handful per join).
 */
@Component
class UntoldNotices {

	/** The most sessions' and members' notices kept. */
	static final int MAX_SESSIONS = 10_000;

	private final Cache<String, List<ObjectNode>> untold;

	UntoldNotices(RelayProperties properties) {
		this.untold = Caffeine.newBuilder()
			.expireAfterWrite(properties.sessions().idleTimeout())
			.maximumSize(MAX_SESSIONS)
			.executor(Runnable::run)
			.build();
	}

	/** Keeps {@code notices} for the next request of {@code call}'s session to {@code member}, after any kept. */
	void keep(VirtualCall call, String member, List<ObjectNode> notices) {
		if (notices.isEmpty() || call.stateless()) {
			return;
		}
		untold.asMap().merge(key(call, member), List.copyOf(notices), (kept, more) -> {
			List<ObjectNode> both = new ArrayList<>(kept);
			both.addAll(more);
			return List.copyOf(both);
		});
	}

	/** The notices kept for {@code call}'s session and {@code member}, then {@code own}; no longer kept. */
	List<ObjectNode> take(VirtualCall call, String member, List<ObjectNode> own) {
		if (call.stateless()) {
			return own;
		}
		List<ObjectNode> kept = untold.asMap().remove(key(call, member));
		if (kept == null) {
			return own;
		}
		List<ObjectNode> all = new ArrayList<>(kept);
		all.addAll(own);
		return List.copyOf(all);
	}

	private static String key(VirtualCall call, String member) {
		return call.server().id() + '\n' + call.sessionId() + '\n' + member;
	}

}
