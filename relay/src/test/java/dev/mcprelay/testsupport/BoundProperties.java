package dev.mcprelay.testsupport;

import java.util.Map;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import dev.mcprelay.config.RelayProperties;

/** {@link RelayProperties} bound from YAML-style keys, as Spring Boot binds them, for unit tests without a context. */
public final class BoundProperties {

	private BoundProperties() {
	}

	/** The relay's properties from {@code properties}, keys without the {@code mcp-relay.} prefix. */
	public static RelayProperties of(Map<String, String> properties) {
		MapConfigurationPropertySource source = new MapConfigurationPropertySource();
		properties.forEach((key, value) -> source.put("mcp-relay." + key, value));
		return new Binder(source).bindOrCreate("mcp-relay", RelayProperties.class);
	}

}
