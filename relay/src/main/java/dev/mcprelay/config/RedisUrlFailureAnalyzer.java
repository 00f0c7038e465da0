package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Reports a start-up that failed in the Redis connection (Spring Boot's {@code RedisUrlSyntaxException}, or the
 * connection factory's {@code 'host' must not be empty}, a {@code NumberFormatException}) because
 * {@code spring.data.redis.url} is no Redis URL ({@link RedisUrlCheck}), in the relay's start-up report: the property,
 * where it was set and what is wrong, never the URL (its password) nor a stack trace. Ordered before Spring Boot's
 * {@code RedisUrlSyntaxFailureAnalyzer}, which prints the URL whole. Any other failure is left to the other analyzers.
 */
class RedisUrlFailureAnalyzer implements FailureAnalyzer, Ordered {

	private final Environment environment;

	RedisUrlFailureAnalyzer(Environment environment) {
		this.environment = environment;
	}

	@Override
	public FailureAnalysis analyze(Throwable failure) {
		if (!fromRedis(failure)) {
			return null;
		}
		List<ConfigurationProblem> problems = RedisUrlCheck.find(environment);
		if (problems.isEmpty() && refusedUrl(failure)) {
			// Spring Data Redis refused the URL for a reason the check does not know: its own report would print it
			problems = List.of(RedisUrlCheck.unreadable(environment, "is not a URL Spring Data Redis can read"));
		}
		return problems.isEmpty() ? null : InvalidRelayConfigurationFailureAnalyzer.analysis(problems, failure);
	}

	/** Whether Spring Boot refused {@code spring.data.redis.url} ({@code RedisUrlSyntaxException} in the chain). */
	private static boolean refusedUrl(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getClass().getSimpleName().equals("RedisUrlSyntaxException")) {
				return true;
			}
		}
		return false;
	}

	/** Whether {@code failure} happened in Spring Boot's or Spring Data's Redis code. */
	private static boolean fromRedis(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getClass().getName().contains("Redis")) {
				return true;
			}
			for (StackTraceElement frame : cause.getStackTrace()) {
				if (frame.getClassName().contains(".redis.")) {
					return true;
				}
			}
		}
		return false;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
