package dev.mcprelay.config;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Checks {@code mcp-relay.shutdown.stream-grace-period} against the shutdown it runs in. The grace period is waited
 * for within one phase of Spring's shutdown, which waits at most {@code spring.lifecycle.timeout-per-shutdown-phase}
 * for it; the next phase, the web server's graceful shutdown, then writes the answers of what the grace's end cut. A
 * grace period as long as that timeout or longer would outlast its phase: Spring would go on to the web server's
 * graceful shutdown while requests still run, and once that phase's timeout ends too the web server aborts them, a
 * bare closed connection instead of their {@code relay_shutting_down} answers (a 30 s grace under a 5 s timeout).
 * Runs once at start-up, with the rest of the configuration's checks; changes nothing.
 */
public final class ShutdownTimingValidator {

	/** The phase timeout's property, named in the problem. */
	static final String PHASE_TIMEOUT = "spring.lifecycle.timeout-per-shutdown-phase";

	/** Spring Boot's own default, when nothing sets it (the relay's application.yml sets 20s). */
	private static final Duration SPRING_DEFAULT = Duration.ofSeconds(30);

	private ShutdownTimingValidator() {
	}

	/** The problem with the grace period in {@code environment}'s shutdown, if any. */
	public static List<ConfigurationProblem> validate(ShutdownProperties shutdown, Environment environment) {
		Duration grace = shutdown.streamGracePeriod();
		Duration phase = Binder.get(environment).bind(PHASE_TIMEOUT, Duration.class).orElse(SPRING_DEFAULT);
		if (grace == null || grace.compareTo(phase) < 0) {
			return List.of();
		}
		return List.of(new ConfigurationProblem("mcp-relay.shutdown.stream-grace-period",
				"is " + grace + ", not shorter than " + PHASE_TIMEOUT + " (" + phase + "), which bounds the wait for it: "
						+ "requests still in flight at shutdown would be cut without an answer",
				"Make it a few seconds shorter than " + PHASE_TIMEOUT + ", or raise that timeout"));
	}

}
