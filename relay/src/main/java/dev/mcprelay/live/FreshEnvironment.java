package dev.mcprelay.live;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.ConfigTreePropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * An environment built anew from the same sources as the relay's own at start-up: the same command-line arguments,
 * system properties, process environment and test or launcher properties (every source that is not a configuration
 * file), with the configuration files ({@code spring.config.location}, {@code additional-location},
 * {@code spring.config.import}, {@code application.yml} in the working directory, profiles...) read again by Spring
 * Boot's own config-data processing. Placeholders therefore resolve as they did at start-up.
 */
final class FreshEnvironment {

	/** The path in a config-data file's name: {@code Config resource 'file [/etc/relay/application.yml]' ...}. */
	private static final Pattern FILE = Pattern.compile("file \\[([^\\]]+)\\]");

	private FreshEnvironment() {
	}

	/** A new environment from {@code running}'s sources, its configuration files read again now. */
	static ConfigurableEnvironment of(ConfigurableEnvironment running) {
		StandardEnvironment fresh = new StandardEnvironment();
		MutablePropertySources sources = fresh.getPropertySources();
		sources.forEach(source -> sources.remove(source.getName()));
		for (PropertySource<?> source : running.getPropertySources()) {
			if (!isConfigData(source) && !ConfigurationPropertySources.isAttachedConfigurationPropertySource(source)) {
				sources.addLast(source);
			}
		}
		fresh.setActiveProfiles(running.getActiveProfiles());
		fresh.setDefaultProfiles(running.getDefaultProfiles());
		ConfigDataEnvironmentPostProcessor.applyTo(fresh);
		ConfigurationPropertySources.attach(fresh);
		return fresh;
	}

	/**
	 * The files and folders (a Secret mounted as a config tree) on the local file system that {@code environment}'s
	 * configuration was read from, as named (a symbolic link stays one: it is what the kubelet swaps).
	 */
	static Set<Path> configurationFiles(ConfigurableEnvironment environment) {
		Set<Path> files = new LinkedHashSet<>();
		for (PropertySource<?> source : environment.getPropertySources()) {
			if (source instanceof ConfigTreePropertySource tree) {
				// named "Config tree '/path'" by Spring Boot; the folder is its source
				files.add(tree.getSource().toAbsolutePath().normalize());
			}
			else if (isConfigData(source)) {
				Matcher matcher = FILE.matcher(source.getName());
				if (matcher.find()) {
					files.add(Path.of(matcher.group(1)).toAbsolutePath().normalize());
				}
			}
		}
		return files;
	}

	private static boolean isConfigData(PropertySource<?> source) {
		return source instanceof ConfigTreePropertySource || source.getName().startsWith("Config resource '");
	}

}
