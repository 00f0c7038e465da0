package dev.mcprelay.proxy;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What every version of one server (by id, from when a reload or start-up added it to when a reload removes it) shares,
 * so that a stream open on settings a reload has since changed learns what the reloads did to its server: its
 * removal ({@link #removed}) and the version each reload made current ({@link #versions}). Signalled by
 * {@link UpstreamRegistry#replaced} once the new snapshot is current; reloads are serialized, so each signal has one
 * emitter.
 */
public final class ServerLifetime {

	private final Sinks.Empty<Void> removal = Sinks.empty();

	/** The latest version a reload made current, replayed to a stream that subscribes after it. */
	private final Sinks.Many<Upstream> versions = Sinks.many().replay().latest();

	/** Set once a reload removed the server, with {@link #removal}: what a request about to be forwarded reads. */
	private volatile boolean gone;

	/** Completes when a reload removed the server. */
	Mono<Void> removed() {
		return removal.asMono();
	}

	/**
	 * Whether a reload removed the server: this lifetime's, not one added again later under its id (which has its own
	 * lifetime). One volatile read.
	 */
	boolean isRemoved() {
		return gone;
	}

	/** Each version of the server a reload made current, the latest first (none while the first version runs). */
	Flux<Upstream> versions() {
		return versions.asFlux();
	}

	void remove() {
		gone = true;
		removal.tryEmitEmpty();
	}

	void changedTo(Upstream next) {
		versions.tryEmitNext(next);
	}

}
