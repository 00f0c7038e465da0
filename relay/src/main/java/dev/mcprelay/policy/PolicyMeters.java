package dev.mcprelay.policy;

import java.util.List;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.KeptCounters;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@value #DECISIONS}, by {@code policy}, {@code server} (the configured server the message went to) and
 * {@code outcome}: {@code denied} (an enforced policy refused a request), {@code hidden} (it left an item out of a
 * list), {@code audited} (an audit-mode policy would have refused), {@code error} (its expression failed at run time,
 * which refuses). Declared at zero for each policy and server it governs, so a dashboard shows them before the first.
 */
final class PolicyMeters {

	static final String DECISIONS = "mcp.relay.policy.decisions";

	private static final String DESCRIPTION = "What policies refused, hid, would refuse (audit mode) or failed on, by "
			+ "policy, server and outcome";

	private final KeptCounters counters;

	PolicyMeters(MeterRegistry registry) {
		this.counters = new KeptCounters(registry);
	}

	void declare(String policy, String server, boolean enforced) {
		for (String outcome : enforced ? new String[] { "denied", "hidden", "error" } : new String[] { "audited", "error" }) {
			counters.declare(DECISIONS, DESCRIPTION, "policy", policy, "server", server, "outcome", outcome);
		}
	}

	/**
	 * Declares the meters of each policy of {@code compiled} for every server of {@code properties} it governs, directly
	 * or through a virtual server the server is a member of (those already there keep their counts).
	 */
	void declareFor(List<Policy> compiled, RelayProperties properties) {
		for (Policy policy : compiled) {
			properties.servers().keySet().forEach(server -> {
				boolean governed = policy.governs(server, null) || properties.virtualServers()
					.entrySet()
					.stream()
					.anyMatch(virtual -> policy.governs(server, virtual.getKey())
							&& (virtual.getValue().members().contains("*")
									|| virtual.getValue().members().contains(server)));
				if (governed) {
					declare(policy.name(), server, policy.enforced());
				}
			});
		}
	}

	void refused(String policy, String server, boolean failed) {
		count(policy, server, "denied");
	}

	void hidden(String policy, String server) {
		count(policy, server, "hidden");
	}

	void audited(String policy, String server) {
		count(policy, server, "audited");
	}

	void failed(String policy, String server) {
		count(policy, server, "error");
	}

	private void count(String policy, String server, String outcome) {
		counters.increment(DECISIONS, DESCRIPTION, "policy", policy, "server", server, "outcome", outcome);
	}

}
