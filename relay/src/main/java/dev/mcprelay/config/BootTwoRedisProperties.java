package dev.mcprelay.config;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds Spring Boot 2's Redis properties, {@code spring.redis.*} (and their variables, {@code SPRING_REDIS_*}), which
 * Spring Boot 3 renamed {@code spring.data.redis.*} and this relay ignores: with {@code sessions.store: redis} the relay
 * would connect to {@code localhost:6379} instead of the Redis the operator named, and never be ready. Each is a
 * {@link ConfigurationProblem} naming the key and the one to write instead; never the value (a password is one).
 */
public final class BootTwoRedisProperties {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("spring.redis");

	private BootTwoRedisProperties() {
	}

	/** One problem per {@code spring.redis.*} key, in key order. */
	public static List<ConfigurationProblem> find(Environment environment) {
		TreeMap<String, ConfigurationProblem> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			iterable.filter(ROOT::isAncestorOf).forEach(name -> {
				String key = name.toString();
				String renamed = "spring.data.redis" + key.substring("spring.redis".length());
				ConfigurationProperty property = source.getConfigurationProperty(name);
				String variable = property == null ? null : variable(property.getOrigin());
				problems.putIfAbsent(key, new ConfigurationProblem(
						variable != null ? key + " (environment variable " + variable + ")" : key,
						"is Spring Boot 2's name, which this relay (Spring Boot 4) ignores",
						"Write " + renamed + (variable != null
								? " (environment variable " + renamed.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace("-", "") + ")"
								: "")));
			});
		}
		return new ArrayList<>(problems.values());
	}

	private static String variable(Origin origin) {
		for (Origin at = origin; at != null; at = at.getParent()) {
			if (at instanceof SystemEnvironmentOrigin environment) {
				return environment.getProperty();
			}
			if (at instanceof PropertySourceOrigin source && StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME
				.equals(source.getPropertySource().getName())) {
				return source.getPropertyName();
			}
		}
		return null;
	}

}
