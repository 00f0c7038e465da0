package dev.mcprelay.policy;

import dev.mcprelay.config.ToolsProperties;

/**
 * A server's tool lists ({@code servers.<id>.tools.allow} and {@code deny}, as written) as a deny rule on the policy
 * engine: true for a tool the lists do not offer ({@link ToolNameFilter}), false for everything else (prompts,
 * resources, and tools offered).
 */
final class ToolListRule implements PolicyRule {

	private final ToolNameFilter filter;

	private final String source;

	ToolListRule(ToolsProperties tools) {
		this.filter = new ToolNameFilter(tools);
		this.source = "tools: allow " + tools.allow() + ", deny " + tools.deny();
	}

	@Override
	public RuleVerdict evaluate(PolicyFacts facts, PolicyVariables variables, boolean argumentsKnown) {
		return facts.tool() != null && !filter.offers(facts.tool()) ? RuleVerdict.TRUE : RuleVerdict.FALSE;
	}

	@Override
	public boolean perItem() {
		return true;
	}

	@Override
	public boolean readsAnnotations() {
		return false;
	}

	/**
	 * No: the lists are about names as written, as they always were (a name they do not match goes upstream, and the
	 * server answers it); a rule that must hold whatever spelling a server resolves is written on {@code mcp.tool}.
	 */
	@Override
	public boolean readsTool() {
		return false;
	}

	@Override
	public boolean readsPrompt() {
		return false;
	}

	@Override
	public String source() {
		return source;
	}

}
