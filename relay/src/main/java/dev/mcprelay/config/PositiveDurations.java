package dev.mcprelay.config;

import java.time.Duration;
import java.util.List;

/** The check every duration of the configuration that bounds a wait or a lifetime shares: it is positive. */
final class PositiveDurations {

	private PositiveDurations() {
	}

	/** Adds a problem at {@code path} unless {@code duration} is set and positive; {@code example} is one that is. */
	static void require(String path, Duration duration, String example, List<ConfigurationProblem> problems) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			problems.add(new ConfigurationProblem(path, "must be positive but is " + duration,
					"Write a positive duration, e.g. " + example));
		}
	}

}
