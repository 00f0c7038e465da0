package dev.mcprelay;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point: a reverse proxy for remote MCP servers, configured under {@code mcp-relay} in application.yml. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class McpRelayApplication {

	public static void main(String[] args) {
		SpringApplication.run(McpRelayApplication.class, args);
	}

}
