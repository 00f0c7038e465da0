package dev.mcprelay.config;

/**
 * One thing wrong in the {@code mcp-relay} configuration.
 *
 * @param property the full property path, e.g. {@code mcp-relay.servers.github.url}
 * @param problem what is wrong, without the offending value when that value may be a secret
 * @param fix what to write instead
 */
public record ConfigurationProblem(String property, String problem, String fix) {

	@Override
	public String toString() {
		return property + ": " + problem + ". " + fix;
	}

}
