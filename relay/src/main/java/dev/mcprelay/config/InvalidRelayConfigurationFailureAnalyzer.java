package dev.mcprelay.config;

import java.util.List;
import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link InvalidRelayConfigurationException} into Spring Boot's start-up report: one line per problem. */
class InvalidRelayConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRelayConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRelayConfigurationException cause) {
		return analysis(cause.problems(), cause);
	}

	/** The start-up report of {@code problems}: one line per problem, then what to do. */
	static FailureAnalysis analysis(List<ConfigurationProblem> problems, Throwable cause) {
		String description = "The mcp-relay configuration has " + problems.size() + " problem(s):\n"
				+ problems.stream().map(p -> "  - " + p).collect(Collectors.joining("\n"));
		return new FailureAnalysis(description,
				"Fix each property named above in application.yml (or its environment variable) and start again.",
				cause);
	}

}
