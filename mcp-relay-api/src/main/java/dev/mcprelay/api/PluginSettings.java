package dev.mcprelay.api;

import java.util.Map;

/**
 * The relay's configuration as an interceptor reads it: any property of its {@code application.yml}, command line or
 * environment, by name (relaxed as Spring Boot relaxes it: {@code plugins.tenant-policy.header} is also the
 * environment variable {@code PLUGINS_TENANTPOLICY_HEADER}). A plugin's interceptor takes it as its constructor's
 * parameter and the relay passes it; keep a plugin's settings under {@code plugins.<plugin>.}. Read once, when the
 * interceptor is made, not per message.
 */
public interface PluginSettings {

	/** The value of property {@code name}, or {@code null} when it is not set. */
	String get(String name);

	/** The value of property {@code name}, or {@code fallback} when it is not set. */
	default String get(String name, String fallback) {
		String value = get(name);
		return value != null ? value : fallback;
	}

	/** Settings holding {@code values} only: for tests. */
	static PluginSettings of(Map<String, String> values) {
		Map<String, String> copy = Map.copyOf(values);
		return copy::get;
	}

}
