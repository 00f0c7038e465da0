package dev.mcprelay.session;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import reactor.core.publisher.Mono;

/**
 * Sessions in this replica's memory: bounded ({@link #MAX_SESSIONS}, least recently used first out), expiring after
 * the idle timeout, and counted per caller ({@link CallerQuota}): a caller past {@code sessions.max-per-caller} loses
 * its own oldest session, reported to {@code onEvicted}. Another replica does not know them.
 */
final class MemorySessionStore implements SessionStore {

	/** Sessions kept at most; past it the least recently used go. */
	static final long MAX_SESSIONS = 100_000;

	private final Cache<SessionKey, Entry> sessions;

	private final CallerQuota<SessionKey> quota;

	private final Consumer<SessionKey> onEvicted;

	MemorySessionStore(Duration idleTimeout, int maxPerCaller, Consumer<SessionKey> onEvicted) {
		this.quota = new CallerQuota<>(maxPerCaller);
		this.onEvicted = onEvicted;
		this.sessions = Caffeine.newBuilder()
			.expireAfterAccess(idleTimeout)
			.maximumSize(MAX_SESSIONS)
			.executor(Runnable::run)
			.<SessionKey, Entry>removalListener((key, entry, cause) -> {
				if (key != null && entry != null) {
					quota.forget(entry.callerId, key);
				}
			})
			.build();
	}

	@Override
	public Mono<Void> open(SessionKey key, String callerId) {
		return Mono.fromRunnable(() -> {
			sessions.put(key, new Entry(callerId));
			for (SessionKey oldest : quota.admit(callerId, key)) {
				sessions.invalidate(oldest);
				onEvicted.accept(oldest);
			}
		});
	}

	/** The sessions {@code callerId} holds here; for tests. */
	int heldBy(String callerId) {
		return quota.held(callerId);
	}

	@Override
	public Mono<SessionState> find(SessionKey key) {
		return Mono.fromSupplier(() -> {
			Entry entry = sessions.getIfPresent(key);
			return entry == null ? null : entry.state();
		});
	}

	@Override
	public Mono<Boolean> exists(SessionKey key) {
		return Mono.fromSupplier(() -> sessions.policy().getIfPresentQuietly(key) != null);
	}

	@Override
	public Mono<Boolean> holds(SessionKey key, String member) {
		return Mono.fromSupplier(() -> {
			Entry entry = sessions.policy().getIfPresentQuietly(key);
			return entry != null && entry.holds(member);
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

	@Override
	public Mono<Void> join(SessionKey key, String member, String state) {
		return Mono.fromRunnable(() -> {
			Entry entry = sessions.getIfPresent(key);
			if (entry != null) {
				entry.join(member, state);
			}
		});
	}

	@Override
	public Mono<Void> end(SessionKey key, String callerId) {
		return Mono.fromRunnable(() -> sessions.invalidate(key));
	}

	private static final class Entry {

		private final String callerId;

		private final Set<String> exposed = new HashSet<>();

		private final Map<String, String> members = new HashMap<>();

		Entry(String callerId) {
			this.callerId = callerId;
		}

		synchronized SessionState state() {
			return new SessionState(callerId, exposed, members);
		}

		synchronized boolean holds(String member) {
			return members.containsKey(member);
		}

		synchronized void join(String member, String state) {
			members.put(member, state);
		}

		synchronized void add(Collection<String> tools) {
			exposed.addAll(tools);
		}

	}

}
