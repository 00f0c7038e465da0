package dev.mcprelay.policy;

/** A policy's CEL expression as a {@link PolicyRule}; a tool definition it needs and the relay lacks fails closed. */
record CelRule(PolicyExpression expression) implements PolicyRule {

	@Override
	public RuleVerdict evaluate(PolicyFacts facts, PolicyVariables variables, boolean argumentsKnown) {
		if (facts.tool() != null && facts.annotations() == null && readsAnnotations()) {
			return RuleVerdict.error(RuleVerdict.TOOL_UNKNOWN);
		}
		return expression.evaluate(variables, argumentsKnown);
	}

	@Override
	public RuleVerdict evaluateForEveryItem(PolicyVariables variables) {
		return expression.evaluateForEveryItem(variables);
	}

	@Override
	public boolean perItem() {
		return expression.inputs().perItem();
	}

	@Override
	public ArgumentShapes argumentShapes() {
		return expression.inputs().argumentShapes();
	}

	@Override
	public boolean readsAnnotations() {
		return expression.inputs().annotations();
	}

	@Override
	public boolean readsTool() {
		return expression.inputs().tool();
	}

	/** Whether the expression reads {@code mcp.tool.name} (or {@code mcp.tool}, or {@code mcp}, whole). */
	boolean readsToolName() {
		return expression.inputs().toolName();
	}

	@Override
	public boolean readsPrompt() {
		return expression.inputs().prompt();
	}

	@Override
	public String source() {
		return expression.source();
	}

}
