package dev.mcprelay.config;

import java.util.regex.Pattern;

import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The relay's secrets stay redacted in the actuator's views of the configuration ({@code configprops} and {@code env},
 * when an operator exposes them), whatever their {@code show-values} says: Spring Boot's usual rule (a key ending in
 * {@code password}, {@code secret}, {@code key}, {@code token}, or holding {@code credentials}; a URI's user info),
 * and the relay's own secrets, whose names follow no such rule: a server's {@code authorization}, its header
 * {@code value}s, an OAuth2 {@code client-secret} and {@code private-key}, an API key's {@code key-sha256}. Everything
 * else (server ids, timeouts, policies) stays readable, so an operator can see the effective configuration; URLs are
 * redacted by Spring Boot's rule (a query may hold a key). Every environment variable's value is redacted too: the
 * secrets behind {@code ${...}} placeholders have whatever names an operator chose.
 */
@Configuration(proxyBeanMethods = false)
class RedactedSecrets {

	/** A configured header's value, wherever the view names it (the {@code env} view by path, {@code configprops} by key). */
	private static final Pattern HEADER_VALUE = Pattern.compile("(.*\\.headers\\[\\d+]\\.)?value");

	@Bean
	static SanitizingFunction relaySecrets() {
		return SanitizingFunction.sanitizeValue()
			.ifLikelySensitive()
			.ifKeyEndsWith("authorization", "client-secret", "clientSecret", "private-key", "privateKey", "key-sha256",
					"keySha256", "secret", "password")
			.ifKeyContains("sha256", "SHA256")
			.ifKeyMatches(HEADER_VALUE)
			// Every environment variable: the secrets behind ${...} placeholders have whatever names an operator chose.
			.ifMatches(data -> data.getPropertySource() instanceof SystemEnvironmentPropertySource);
	}

}
