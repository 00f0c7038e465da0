package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may call the relay, {@code mcp-relay.security}.
 *
 * @param mode {@code api-key}, {@code jwt} or {@code none}; required (start-up fails without it)
 * @param apiKeys the keys accepted in {@code api-key} mode
 * @param jwt how tokens are validated in {@code jwt} mode
 */
public record SecurityProperties(
		SecurityMode mode,
		@DefaultValue List<ApiKeyProperties> apiKeys,
		@DefaultValue JwtProperties jwt) {

	public SecurityProperties {
		apiKeys = apiKeys == null ? List.of() : List.copyOf(apiKeys);
	}

}
