package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One version of a virtual server's settings: from the configuration that added or changed it to the reload that
 * changes or removes it ({@link VirtualServers}). Each snapshot's {@link VirtualServer} of it shares it while reloads
 * leave the settings as they were: {@code members: ["*"]} resolving to the servers a reload added or removed, or a
 * removed server's mentions dropped with it, are the same version. A session opened on a version, and every stream and
 * call of it, ends with it: {@link #ended()} completes with why ({@code server_removed}, {@code session_ended}), also
 * for a request that subscribes afterwards (one that took the earlier snapshot). Ended once, by the reload that made
 * the next configuration current; reloads are serialized.
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

	/** Completes with why a reload ended this version ({@code server_removed}, {@code session_ended}); never else. */
	public Mono<String> ended() {
		return end.asMono();
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

	/** Called once the configuration without this version is current. */
	void end(String reason) {
		endedBy = reason;
		end.tryEmitValue(reason);
	}

	@Override
	public String toString() {
		return "VirtualServerVersion[" + serial + (endedBy == null ? "" : ", ended: " + endedBy) + "]";
	}

}
