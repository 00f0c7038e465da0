package dev.mcprelay;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration;

/**
 * Entry point: a reverse proxy for remote MCP servers, configured under {@code mcp-relay} in application.yml.
 *
 * <p>Spring Boot's own security set-up (a default filter chain with a generated password, form and basic login) is
 * switched off: the relay's front door ({@code dev.mcprelay.security}) is the only security there is, and in mode
 * {@code none} no security filter runs at all.
 */
@SpringBootApplication(exclude = { ReactiveWebSecurityAutoConfiguration.class, ReactiveUserDetailsServiceAutoConfiguration.class,
		ReactiveManagementWebSecurityAutoConfiguration.class })
@ConfigurationPropertiesScan
public class McpRelayApplication {

	public static void main(String[] args) {
		SpringApplication.run(McpRelayApplication.class, args);
	}

}
