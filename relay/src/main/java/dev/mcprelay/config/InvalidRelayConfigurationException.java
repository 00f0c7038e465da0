package dev.mcprelay.config;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown at start-up when the {@code mcp-relay} configuration has problems; carries every problem found. */
public class InvalidRelayConfigurationException extends RuntimeException {

	private final List<ConfigurationProblem> problems;

	public InvalidRelayConfigurationException(List<ConfigurationProblem> problems) {
		super("Invalid mcp-relay configuration:\n" + problems.stream().map(p -> "  - " + p).collect(Collectors.joining("\n")));
		this.problems = List.copyOf(problems);
	}

	public List<ConfigurationProblem> problems() {
		return problems;
	}

}
