package dev.mcprelay.plugins;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.PluginSettings;

/** {@link PluginSettings} for the interceptors of plugins: the relay's Spring {@link Environment}. */
@Component
class EnvironmentPluginSettings implements PluginSettings {

	private final Environment environment;

	EnvironmentPluginSettings(Environment environment) {
		this.environment = environment;
	}

	@Override
	public String get(String name) {
		return environment.getProperty(name);
	}

}
