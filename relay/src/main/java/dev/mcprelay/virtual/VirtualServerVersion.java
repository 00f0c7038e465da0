package dev.mcprelay.virtual;

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
 */
public final class VirtualServerVersion {

	private static final AtomicLong SERIALS = new AtomicLong();

	/** Names this version among every version this process made: what a kept catalogue of it is keyed by. */
	private final long serial = SERIALS.incrementAndGet();

	private final Sinks.One<String> end = Sinks.one();

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
