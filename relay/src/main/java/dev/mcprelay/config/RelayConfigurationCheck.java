package dev.mcprelay.config;

import java.util.ArrayList;
import java.util.List;

import org.springframework.core.env.Environment;

/**
 * Everything start-up checks of the configuration, as one list: the bound {@code mcp-relay} tree
 * ({@link RelayPropertiesValidator}: every value, unresolved variables included), the keys under {@code mcp-relay} that
 * are no property ({@link UnknownRelayProperties}), environment variables meant for the relay that set nothing
 * ({@link RelayEnvironmentVariables}), Spring Boot 2's Redis properties ({@link BootTwoRedisProperties}), a Redis URL
 * that is none ({@link RedisUrlCheck}), and every key the operator wrote with a variable that is not set, or in shell syntax ({@link UnresolvedVariables}). The
 * caller adds what only it knows (the relay's own paths) and stops start-up if the list is not empty.
 */
public final class RelayConfigurationCheck {

	private RelayConfigurationCheck() {
	}

	/** Every problem of the configuration {@code properties} was bound from {@code environment}. */
	public static List<ConfigurationProblem> problems(RelayProperties properties, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>(UnknownRelayProperties.find(environment));
		problems.addAll(RelayEnvironmentVariables.find(environment));
		problems.addAll(BootTwoRedisProperties.find(environment));
		problems.addAll(RedisUrlCheck.find(environment));
		problems.addAll(UnresolvedVariables.findInEnvironment(environment));
		problems.addAll(RelayPropertiesValidator.validate(properties, environment));
		problems.addAll(ShutdownTimingValidator.validate(properties.shutdown(), environment));
		return problems;
	}

}
