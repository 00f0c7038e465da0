package dev.mcprelay.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.cel.runtime.CelAttributePattern;
import dev.mcprelay.config.RelayProperties;

/**
 * What the policies of a snapshot say to the operator as they are compiled ({@link PolicyCompiler}): enforced allows
 * that govern one server together (directly, or through one virtual server). Allows are alternatives, so each opens
 * what it is true for whatever the other says, which an author who meant each as a restriction does not expect
 * (docs/policies.md: restrictions are written as deny); and rules that would refuse tool search's own tool where tool
 * search answers it before them. Each is warned of once: at start-up, and at a reload only when the reload made it.
 */
final class PolicyWarnings {

	private static final Logger log = LoggerFactory.getLogger(PolicyCompiler.class);

	private PolicyWarnings() {
	}

	/** The tool tool search answers itself, before the policies (interceptors' {@code ToolSearchPolicy.SEARCH_TOOL}). */
	static final String SEARCH_TOOL = "search_available_tools";

	/**
	 * What a warning cannot know of a call of {@value #SEARCH_TOOL}: who calls, with which headers and arguments, on
	 * which server, and the annotations of a tool no server published.
	 */
	private static final CelAttributePattern[] ALL_BUT_THE_NAME = {
			CelAttributePattern.fromQualifiedIdentifier("caller"), CelAttributePattern.fromQualifiedIdentifier("request"),
			CelAttributePattern.fromQualifiedIdentifier("server"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.tool.annotations"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.arguments") };

	/**
	 * Warns of each policy of {@code compiled} whose rule would refuse a call of {@value #SEARCH_TOOL}, or might, and
	 * that governs a server or a virtual server with tool search on, and is not among {@code warnedBefore} (review 43f
	 * F-D): tool search answers its own tool before the policies run, so such a rule never applies to that call (what a
	 * search finds and lists is decided by the policies, as a call of each tool would be). Decided from the checked
	 * expression, not from its text (review 43g N-2): a rule that reads {@code mcp.tool.name} is run once with the name
	 * {@value #SEARCH_TOOL} and the method {@code tools/call}, all else unknown ({@link #ALL_BUT_THE_NAME}), so that
	 * {@code "search_available" + "_tools"}, an escape, {@code startsWith("search")} or a name list that leaves it out
	 * count as CEL reads them; the rule is warned of unless CEL says it lets that call pass whatever the rest is (a
	 * deny false, an allow true). The relay does not refuse the configuration: a rule may name the tool to leave it
	 * alone ({@code mcp.tool.name != "search_available_tools" && ...}), and is then not warned of.
	 *
	 * @return a key of each such policy ({@code ["", "search_available_tools", name]}), warned of now or before
	 */
	static Set<List<String>> onRelayOwnTool(List<Policy> compiled, RelayProperties properties,
			Set<List<String>> warnedBefore) {
		Set<List<String>> warned = new HashSet<>();
		for (Policy policy : compiled) {
			if (!(policy.rule() instanceof CelRule rule) || !mayRefuseASearch(policy, rule)) {
				continue;
			}
			String where = searchedWhere(policy, properties);
			List<String> key = List.of("", SEARCH_TOOL, policy.name());
			if (where != null && warned.add(key) && !warnedBefore.contains(key)) {
				log.warn("Policy '{}' reads the tool's name and would, or might, refuse a call of {}, which tool search "
						+ "answers itself on {} before any policy runs: the rule never applies to that call (what a "
						+ "search finds is decided by the policies as a call of each tool would be; docs/policies.md)",
						policy.name(), SEARCH_TOOL, where);
			}
		}
		return Set.copyOf(warned);
	}

	/**
	 * Whether {@code rule}, the rule of {@code policy}, reads the tool's name and CEL cannot tell that it lets a call of
	 * {@value #SEARCH_TOOL} pass whatever the caller, headers, arguments and server are.
	 */
	static boolean mayRefuseASearch(Policy policy, CelRule rule) {
		if (!rule.readsToolName()) {
			return false;
		}
		PolicyFacts search = new PolicyFacts(null, "", null, "tools/call", false, SEARCH_TOOL, Map.of(), null, null,
				Map.of(), null);
		RuleVerdict verdict = rule.expression().evaluateWhatever(search.variables(), ALL_BUT_THE_NAME);
		return verdict != (policy.denies() ? RuleVerdict.FALSE : RuleVerdict.TRUE);
	}

	/** The first server or virtual server with tool search on that {@code policy} governs, or {@code null}. */
	private static String searchedWhere(Policy policy, RelayProperties properties) {
		for (var server : properties.servers().entrySet()) {
			if (server.getValue().toolSearch().enabled() && policy.governs(server.getKey(), null)) {
				return "server '" + server.getKey() + "'";
			}
		}
		for (var virtual : properties.virtualServers().entrySet()) {
			if (!virtual.getValue().toolSearch().enabled()) {
				continue;
			}
			for (String member : properties.servers().keySet()) {
				if ((virtual.getValue().members().contains("*") || virtual.getValue().members().contains(member))
						&& policy.governs(member, virtual.getKey())) {
					return "virtual server '" + virtual.getKey() + "'";
				}
			}
		}
		return null;
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
