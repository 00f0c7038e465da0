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

	/** Each snapshot made current later than generation {@code generation}, the latest first, then as they come. */
	Flux<ConfigurationSnapshot> after(long generation) {
		return applied.asFlux().filter(snapshot -> snapshot.generation() > generation);
	}

	void applied(ConfigurationSnapshot snapshot) {
		applied.tryEmitNext(snapshot);
	}

}
