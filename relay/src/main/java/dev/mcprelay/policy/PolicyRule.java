package dev.mcprelay.policy;

/**
 * What one policy says about a message: a CEL expression ({@link CelRule}) or a server's tool lists
 * ({@link ToolListRule}), both answering on the same terms so that one engine decides with both.
 */
interface PolicyRule {

	/**
	 * The rule's verdict on {@code facts}, whose variables are {@code variables} ({@link PolicyFacts#variables()}, one
	 * for every rule that decides the same message); {@code argumentsKnown} false while an item is listed. Never
	 * throws.
	 */
	RuleVerdict evaluate(PolicyFacts facts, PolicyVariables variables, boolean argumentsKnown);

	/** Whether the verdict can differ from one listed item to another (else a list is decided once). */
	boolean perItem();

	/**
	 * The verdict on every item of a list at once, the variables of the list being {@code variables} (no item
	 * named), when the item cannot change it; {@code null} when it can, and each item is decided on its own.
	 */
	default RuleVerdict evaluateForEveryItem(PolicyVariables variables) {
		return null;
	}

	/** How it reads a call's arguments ({@link ArgumentShapes#NONE} when it reads none). */
	default ArgumentShapes argumentShapes() {
		return ArgumentShapes.NONE;
	}

	/** Whether it reads a tool's published definition ({@code mcp.tool.annotations}). */
	boolean readsAnnotations();

	/**
	 * Whether it reads the tool a call names ({@code mcp.tool}: its name or its annotations): on a server such a rule
	 * governs, a call of a name the server did not publish never goes upstream ({@link Policies#readsTool}).
	 */
	boolean readsTool();

	/** Whether it reads the prompt a request names ({@code mcp.prompt}), to the same end as {@link #readsTool}. */
	boolean readsPrompt();

	/** What the operator wrote, for logs. */
	String source();

}
