package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One version of a virtual server's settings: from the configuration that added or changed it to the reload that
 * changes or removes it ({@link VirtualServers}). Each snapshot's {@link VirtualServer} of it shares it while reloads
 * leave the settings as they were: {@code members: ["*"]} resolving to the servers a reload added or removed, or a
 * removed server's mentions dropped with it, are the same version. A session opened on a version, and every stream and
 * call of it, ends with it: {@link #endedFor} completes with why ({@code server_removed}, {@code session_ended}), also
 * for a request that subscribes afterwards (one that took the earlier snapshot). Ended once, by the reload that made
 * the next configuration current, which names the version that replaced it ({@link #end}); reloads are serialized.
 * A session this version served whose terms are not ones that reload replaced (the successor's own: opened on a
 * replica that applied the change first) carries on in the successor ({@link #successorFor}) when the successor only
 * added members: its streams and calls here end only when a version of it ends the session.
 *
 * <p>It also remembers the session terms ({@link VirtualSessionTerms}) this replica has seen its virtual server run
 * under: those of every configuration of this version ({@link #holds}), and those of the versions of the same virtual
 * server this replica replaced before it ({@link #retired}, the last {@value #MAX_RETIRED}). A session stored with
 * terms this version holds holds (a removed server's mention that left, and the server added back, change the terms
 * but not the version); one stored with retired terms ended with its version; terms of neither this replica never ran
 * (a newer configuration another replica applied first, or an older one from before this replica started).
 */
public final class VirtualServerVersion {

	private static final AtomicLong SERIALS = new AtomicLong();

	/** Names this version among every version this process made: what a kept catalogue of it is keyed by. */
	private final long serial = SERIALS.incrementAndGet();

	private final Sinks.One<String> end = Sinks.one();

	/** The most terms of replaced versions a version remembers. */
	static final int MAX_RETIRED = 64;

	/** The terms of each configuration of this version this replica compiled. */
	private final Set<String> held = ConcurrentHashMap.newKeySet();

	/** The terms of the versions of the same virtual server this replica replaced before this one, oldest first. */
	private final Set<String> retired;

	/** The first version of a virtual server on this replica (added, or this replica started): nothing retired. */
	public VirtualServerVersion() {
		this.retired = Set.of();
	}

	/** The version that replaces {@code replaced} (a reload changed the virtual server's settings). */
	VirtualServerVersion(VirtualServerVersion replaced) {
		List<String> all = new ArrayList<>(replaced.retired);
		all.addAll(replaced.held);
		this.retired = new LinkedHashSet<>(all.subList(Math.max(0, all.size() - MAX_RETIRED), all.size()));
	}

	/** Notes that a configuration of this version has a virtual server with session terms {@code terms}. */
	void holds(String terms) {
		held.add(terms);
	}

	/** Whether a configuration of this version had session terms {@code terms} on this replica. */
	boolean held(String terms) {
		return held.contains(terms);
	}

	/**
	 * Whether {@code terms} are those of a version this replica replaced before this one (and none of this version's):
	 * a session stored with them ended with that version.
	 */
	boolean retired(String terms) {
		return retired.contains(terms) && !held.contains(terms);
	}

	private volatile String endedBy;

	/** The virtual server of the version that replaced this one; {@code null} while it runs, or once removed. */
	private volatile VirtualServer successor;

	/**
	 * Completes with why a reload ended a session stored with {@code terms} ({@code server_removed},
	 * {@code session_ended}; {@code null} terms: a request without a session, or a session stored by an earlier relay)
	 * that runs on this version: when this version ends, unless the session carries on in its successor
	 * ({@link #successorFor}), then when the successor's end ends it, and so on; never else. Costs a subscription to
	 * this version's end, nothing more, while no reload ended it. This is the verdict of the terms alone: a session's
	 * streams follow {@link VirtualSessionEnds}, which also asks the store whether another replica ended a session that
	 * carries on by its terms.
	 */
	public Mono<String> endedFor(String terms) {
		return end.asMono().flatMap(reason -> {
			VirtualServer next = successorFor(terms);
			return next == null ? Mono.just(reason) : next.version().endedFor(terms);
		});
	}

	/**
	 * What the session store said of each session that outlived this version by its terms ({@link #successorFor}),
	 * asked as this version ended: whether it is still live there (not ended by another replica meanwhile). Asked
	 * once per session and shared by all that follow it ({@link VirtualSessionEnds}); kept while this version is.
	 */
	private final Map<String, Mono<Boolean>> liveAfterEnd = new ConcurrentHashMap<>();

	/** Completes with why a reload ended this version, once it did (at once if it has). */
	Mono<String> ended() {
		return end.asMono();
	}

	/**
	 * Whether session {@code sessionId} is still live in the store, as {@code ask} said the first time it was asked
	 * after this version ended: the one answer every stream of the session on this replica follows.
	 */
	Mono<Boolean> liveAfterEnd(String sessionId, Supplier<Mono<Boolean>> ask) {
		return liveAfterEnd.computeIfAbsent(sessionId, id -> ask.get().cache());
	}

	/**
	 * The virtual server a session stored with {@code terms} carries on in once a reload ended this version: the
	 * successor, unless that reload removed the virtual server or one of its members ({@link #end}), or replaced the
	 * session's terms on this replica (the successor holds them {@linkplain #retired retired}), or the session was
	 * stored without terms; then
	 * {@code null}: the session ended with this version. {@code null} too while this version runs.
	 */
	VirtualServer successorFor(String terms) {
		VirtualServer next = successor;
		return next == null || terms == null || next.version().retired(terms) ? null : next;
	}

	/** Whether a reload ended this version. */
	public boolean isEnded() {
		return endedBy != null;
	}

	/** Why a reload ended this version ({@code server_removed}, {@code session_ended}); {@code null} while it runs. */
	String endedBy() {
		return endedBy;
	}

	long serial() {
		return serial;
	}

	/**
	 * Called once the configuration without this version is current: {@code ended} is this version's virtual server
	 * in the configuration before, {@code successor} the virtual server of the version that replaced it there,
	 * {@code null} when the reload removed it. Sessions may carry on in the successor only when it keeps every member
	 * {@code ended} had (members only added): a session this replica served on {@code ended} may stream from any of
	 * them, and a member the successor dropped must not go on reaching it (nor a caller whose access to that member
	 * the same reload withdrew, review 44j F1); then every session of this version ends with it, as
	 * {@code successor == null}.
	 */
	void end(String reason, VirtualServer ended, VirtualServer successor) {
		this.successor = keepsEveryMember(ended, successor) ? successor : null;
		endedBy = reason;
		end.tryEmitValue(reason);
	}

	/** Whether {@code successor} exists and has every member {@code ended} had. */
	static boolean keepsEveryMember(VirtualServer ended, VirtualServer successor) {
		return successor != null && successor.members().containsAll(ended.members());
	}

	@Override
	public String toString() {
		return "VirtualServerVersion[" + serial + (endedBy == null ? "" : ", ended: " + endedBy) + "]";
	}

}
