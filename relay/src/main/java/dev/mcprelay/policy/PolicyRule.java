package dev.mcprelay.policy;

/**
 * What one policy says about a message: a CEL expression ({@link CelRule}) or a server's tool lists
 * ({@link ToolListRule}), both answering on the same terms so that one engine decides with both.
 */
interface PolicyRule {

	/**
	 * The rule's verdict on {@code facts}, whose variables are {@code activation} ({@link PolicyFacts#activation()},
	 * made once for every rule that decides the same message); {@code argumentsKnown} false while an item is listed.
	 * Never throws.
	 */
	RuleVerdict evaluate(PolicyFacts facts, java.util.Map<String, Object> activation, boolean argumentsKnown);

	/** Whether the verdict can differ from one listed item to another (else a list is decided once). */
	boolean perItem();

	/** How it reads a call's arguments ({@link ArgumentShapes#NONE} when it reads none). */
	default ArgumentShapes argumentShapes() {
		return ArgumentShapes.NONE;
	}

	/** Whether it reads a tool's published definition ({@code mcp.tool.annotations}). */
	boolean readsAnnotations();

	/** What the operator wrote, for logs. */
	String source();

}
