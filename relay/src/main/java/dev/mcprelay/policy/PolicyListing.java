package dev.mcprelay.policy;

import java.util.List;

/**
 * The policies' decision on each item of one list ({@link Policies#listing}): made for one list, on one thread, and
 * dropped with it. What the items share is worked out once: their variables {@code caller}, {@code server} and
 * {@code request}, and the verdict of each rule the item cannot change (one that reads no item, or whose outcome the
 * caller alone decides, as {@code caller.kind == "jwt" && mcp.tool.name == "x"} for an API key). The other rules are
 * run on each item, and the one rule combines them ({@link PolicyEvaluation}), exactly as {@link Policies#lists}
 * would for the item alone.
 */
public final class PolicyListing {

	private final Policies policies;

	private final List<Policy> governing;

	private final PolicyFacts.Base base;

	private final RuleVerdict[] fixed;

	PolicyListing(Policies policies, List<Policy> governing, PolicyFacts list) {
		this.policies = policies;
		this.governing = governing;
		this.base = governing.isEmpty() ? null : list.base();
		this.fixed = new RuleVerdict[governing.size()];
		PolicyVariables variables = governing.isEmpty() ? null : list.variables(base);
		for (int i = 0; i < governing.size(); i++) {
			PolicyRule rule = governing.get(i).rule();
			if (!(rule instanceof CelRule)) {
				continue;
			}
			fixed[i] = rule.perItem() ? rule.evaluateForEveryItem(variables) : rule.evaluate(list, variables, false);
		}
	}

	/**
	 * Whether the item {@code item} names may be listed; {@code item} holds the list's facts with the item named
	 * ({@link PolicyFacts#forTool}, {@link PolicyFacts#forItem}). Hidden items are counted, as {@link Policies#lists}
	 * counts them.
	 */
	public boolean lists(PolicyFacts item) {
		return policies.lists(governing, item, base, fixed);
	}

}
