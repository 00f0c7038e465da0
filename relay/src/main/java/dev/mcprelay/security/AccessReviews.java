package dev.mcprelay.security;

import dev.mcprelay.live.ConfigurationSnapshot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The configuration snapshots a reload made current, for the requests the front door admitted on an earlier one to
 * review their caller's access against ({@link WithdrawnAccess}): shared by the front door's part of every
 * snapshot ({@link CallerChecks}, carried from one to the next by {@link CallerAuthentication}), signalled once a new
 * snapshot is current ({@link CallerAuthentication#replaced}); reloads are serialized, so the signal has one emitter.
 */
final class AccessReviews {

	/** The latest snapshot a reload made current, replayed to a review that begins after it. */
	private final Sinks.Many<ConfigurationSnapshot> applied = Sinks.many().replay().latest();

	/** The latest snapshot a reload made current, or {@code null} before the first reload. */
	private volatile ConfigurationSnapshot latest;

	/** Each snapshot made current later than generation {@code generation}, the latest first, then as they come. */
	Flux<ConfigurationSnapshot> after(long generation) {
		return applied.asFlux().filter(snapshot -> snapshot.generation() > generation);
	}

	/**
	 * The latest snapshot a reload made current if it is later than generation {@code generation}, else {@code null}:
	 * what a request admitted on {@code generation} is judged by when it is about to be forwarded.
	 */
	ConfigurationSnapshot latestAfter(long generation) {
		ConfigurationSnapshot now = latest;
		return now != null && now.generation() > generation ? now : null;
	}

	void applied(ConfigurationSnapshot snapshot) {
		latest = snapshot;
		applied.tryEmitNext(snapshot);
	}

}
