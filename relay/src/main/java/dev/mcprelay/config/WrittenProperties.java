package dev.mcprelay.config;

import java.util.Set;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.core.env.CommandLinePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The configuration as it was written, before any placeholder is resolved: the text a property source holds for a
 * property, and what kind of source that is. A source an operator writes as configuration (a configuration file, a
 * command-line argument, a system property) holds names the operator chose, which a problem may print; any other (an
 * environment variable, {@code SPRING_APPLICATION_JSON}) may hold the secret itself, of which nothing is printed.
 *
 * <p>It runs when {@link UnresolvedVariables} checks a configuration, on the caller's thread. It changes nothing: it
 * only asks the environment's property sources. On failure: an exception a property source throws reaches the caller
 * as it is.
 */
final class WrittenProperties {

	/** The property sources an operator writes: command-line arguments and system properties (and files, by type). */
	private static final Set<String> WRITTEN = Set.of(CommandLinePropertySource.COMMAND_LINE_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	/** The property source Spring Boot makes of {@code SPRING_APPLICATION_JSON}: written too, in an environment variable. */
	static final String APPLICATION_JSON = "spring.application.json";

	private WrittenProperties() {
	}

	/**
	 * {@code name} as written in the first property source that holds it (or holds the list it is an element of,
	 * written as one comma-separated text), or {@code null} when none does.
	 */
	static ConfigurationProperty written(ConfigurationPropertyName name, Environment environment) {
		for (ConfigurationPropertyName at = name; at != null && !at.isEmpty(); at = at.isLastElementIndexed()
				? at.getParent() : null) {
			for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
				ConfigurationProperty property = source.getConfigurationProperty(at);
				if (property != null && property.getValue() != null) {
					return property;
				}
			}
		}
		return null;
	}

	/** Whether the operator wrote {@code source}: a configuration file, the command line, the system properties. */
	static boolean written(ConfigurationPropertySource source) {
		Object underlying = source.getUnderlyingSource();
		return underlying instanceof OriginTrackedMapPropertySource
				|| underlying instanceof PropertySource<?> named && WRITTEN.contains(named.getName());
	}

	/** Whether {@code source} is the one Spring Boot makes of {@code SPRING_APPLICATION_JSON}. */
	static boolean isApplicationJson(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> named
				&& APPLICATION_JSON.equals(named.getName());
	}

	/**
	 * Whether a problem may name a variable written in {@code source}: one an operator writes as configuration text (a
	 * file, the command line, a system property), never an environment variable, whose value may be a secret.
	 */
	static boolean namable(ConfigurationPropertySource source) {
		return source != null && written(source);
	}

}
