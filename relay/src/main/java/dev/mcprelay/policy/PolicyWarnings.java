package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.config.RelayProperties;

/**
 * What the policies of a snapshot say to the operator as they are compiled ({@link PolicyCompiler}): enforced allows
 * that govern one server together (directly, or through one virtual server). Allows are alternatives, so each opens
 * what it is true for whatever the other says, which an author who meant each as a restriction does not expect
 * (docs/policies.md: restrictions are written as deny). Each such group is warned of once: at start-up, and at a reload
 * only when the reload made it.
 */
final class PolicyWarnings {

	private static final Logger log = LoggerFactory.getLogger(PolicyCompiler.class);

	private PolicyWarnings() {
	}

	/**
	 * Warns of each group of allows of {@code compiled} that govern one server together and is not among
	 * {@code warnedBefore}.
	 *
	 * @return every such group, warned of now or before
	 */
	static Set<List<String>> allowsTogether(List<Policy> compiled, RelayProperties properties,
			Set<List<String>> warnedBefore) {
		Set<List<String>> groups = new HashSet<>();
		for (String server : properties.servers().keySet()) {
			List<String> virtuals = new ArrayList<>();
			virtuals.add(null);
			properties.virtualServers().forEach((id, virtual) -> {
				if (virtual.members().contains("*") || virtual.members().contains(server)) {
					virtuals.add(id);
				}
			});
			for (String virtual : virtuals) {
				List<String> allows = compiled.stream()
					.filter(policy -> policy.enforced() && !policy.denies() && policy.governs(server, virtual))
					.map(Policy::name)
					.toList();
				if (allows.size() > 1 && groups.add(allows) && !warnedBefore.contains(allows)) {
					log.warn("Policies {} are allows that govern server '{}'{} together: a message passes when any one "
							+ "of them is true, so each opens what it allows whatever the others say. Write a "
							+ "restriction as a deny (docs/policies.md)", allows, server,
							virtual == null ? "" : " through virtual server '" + virtual + "'");
				}
			}
		}
		return Set.copyOf(groups);
	}

}
