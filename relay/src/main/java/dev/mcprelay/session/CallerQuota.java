package dev.mcprelay.session;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many sessions each caller holds, oldest first, so that one caller past {@code mcp-relay.sessions.max-per-caller}
 * ends its own oldest sessions and never another caller's (one caller could otherwise fill a store's capacity and push
 * everyone else's sessions out). Thread-safe; holds nothing for a caller without sessions. Anonymous callers (security
 * mode {@code none}, a {@code null} id) are not counted: there is no caller to count.
 *
 * @param <K> what identifies a session
 */
public final class CallerQuota<K> {

	private final int maxPerCaller;

	private final ConcurrentHashMap<String, ArrayDeque<K>> byCaller = new ConcurrentHashMap<>();

	public CallerQuota(int maxPerCaller) {
		if (maxPerCaller < 1) {
			throw new IllegalArgumentException("max-per-caller must be at least 1, not " + maxPerCaller);
		}
		this.maxPerCaller = maxPerCaller;
	}

	/**
	 * Counts {@code session} as {@code caller}'s newest.
	 *
	 * @return the caller's oldest sessions past the limit, no longer counted: the caller of this method ends them
	 */
	public List<K> admit(String caller, K session) {
		if (caller == null) {
			return List.of();
		}
		List<K> over = new ArrayList<>(0);
		byCaller.compute(caller, (id, sessions) -> {
			ArrayDeque<K> held = sessions != null ? sessions : new ArrayDeque<>();
			held.addLast(session);
			while (held.size() > maxPerCaller) {
				over.add(held.pollFirst());
			}
			return held;
		});
		return over;
	}

	/** Stops counting {@code session}, which ended or expired. */
	public void forget(String caller, K session) {
		if (caller == null) {
			return;
		}
		byCaller.computeIfPresent(caller, (id, sessions) -> {
			sessions.remove(session);
			return sessions.isEmpty() ? null : sessions;
		});
	}

	/** The sessions {@code caller} holds now. */
	public int held(String caller) {
		int[] held = { 0 };
		if (caller != null) {
			byCaller.computeIfPresent(caller, (id, sessions) -> {
				held[0] = sessions.size();
				return sessions;
			});
		}
		return held[0];
	}

	/** The callers holding a session now. */
	int callers() {
		return byCaller.size();
	}

}
