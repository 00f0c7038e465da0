package dev.mcprelay.session;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import reactor.core.publisher.Mono;

/**
 * Sessions in this replica's memory: bounded ({@link #MAX_SESSIONS}, least recently used first out) and expiring
 * after the idle timeout. Another replica does not know them.
 */
final class MemorySessionStore implements SessionStore {

	/** Sessions kept at most; past it the least recently used go. */
	static final long MAX_SESSIONS = 100_000;

	private final Cache<SessionKey, Entry> sessions;

	MemorySessionStore(Duration idleTimeout) {
		this.sessions = Caffeine.newBuilder().expireAfterAccess(idleTimeout).maximumSize(MAX_SESSIONS).build();
	}

	@Override
	public Mono<Void> open(SessionKey key, String callerId) {
		return Mono.fromRunnable(() -> sessions.put(key, new Entry(callerId)));
	}

	@Override
	public Mono<SessionState> find(SessionKey key) {
		return Mono.fromSupplier(() -> {
			Entry entry = sessions.getIfPresent(key);
			return entry == null ? null : entry.state();
		});
	}

	@Override
	public Mono<Void> expose(SessionKey key, Collection<String> tools) {
		return Mono.fromRunnable(() -> {
			Entry entry = sessions.getIfPresent(key);
			if (entry != null) {
				entry.add(tools);
			}
		});
	}

	private static final class Entry {

		private final String callerId;

		private final Set<String> exposed = new HashSet<>();

		Entry(String callerId) {
			this.callerId = callerId;
		}

		synchronized SessionState state() {
			return new SessionState(callerId, exposed);
		}

		synchronized void add(Collection<String> tools) {
			exposed.addAll(tools);
		}

	}

}
