package dev.mcprelay.policy;

import dev.cel.runtime.CelAttributePattern;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelUnknownSet;
import dev.cel.runtime.PartialVars;

/**
 * One compiled and type-checked policy expression ({@link PolicyEnvironment}), with what it reads
 * ({@link PolicyInputs}). Evaluating it never throws: a run-time failure is an error verdict; with the arguments
 * unknown (an item being listed) an outcome that depends on them is {@link RuleVerdict#UNKNOWN}. Thread-safe.
 */
final class PolicyExpression {

	private static final CelAttributePattern ARGUMENTS = CelAttributePattern.fromQualifiedIdentifier("mcp.arguments");

	/** What names a listed item: unknown when a list is decided once for all its items. */
	private static final CelAttributePattern[] ITEM = { CelAttributePattern.fromQualifiedIdentifier("mcp.tool"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.prompt"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.resource"), ARGUMENTS };

	private final String source;

	private final CelRuntime.Program program;

	private final CelRuntime.Program partial;

	private final PolicyInputs inputs;

	/**
	 * @param program the expression's program for variables all known
	 * @param partial its program that tracks unknowns, for variables some of which are not known
	 */
	PolicyExpression(String source, CelRuntime.Program program, CelRuntime.Program partial, PolicyInputs inputs) {
		this.source = source;
		this.program = program;
		this.partial = partial;
		this.inputs = inputs;
	}

	String source() {
		return source;
	}

	PolicyInputs inputs() {
		return inputs;
	}

	/**
	 * The expression's verdict on {@code variables} ({@code caller}, {@code server}, {@code mcp}, {@code request}).
	 * @param argumentsKnown whether {@code mcp.arguments} is known (a call), or not (an item being listed)
	 */
	RuleVerdict evaluate(PolicyVariables variables, boolean argumentsKnown) {
		if (argumentsKnown || !inputs.arguments()) {
			return run(variables, false);
		}
		RuleVerdict partial = run(variables, true);
		if (partial.outcome() != RuleVerdict.Outcome.ERROR) {
			return partial;
		}
		// Some operations fail on an unknown instead of carrying it (an optional field of unknown arguments), and an
		// error elsewhere can be made moot by an argument ("x || error"). Where the arguments that decide the rule are
		// known, they decide it (Policies tries them); else an error that goes away with arguments of some shape came
		// from not knowing them, and the outcome is unknown.
		if (inputs.argumentShapes().exact()) {
			return RuleVerdict.UNKNOWN;
		}
		return run(variables.withEmptyArguments(), false).outcome() == RuleVerdict.Outcome.ERROR ? partial
				: RuleVerdict.UNKNOWN;
	}

	/**
	 * The expression's verdict on every item of a list at once, when what names the item ({@code mcp.tool},
	 * {@code mcp.prompt}, {@code mcp.resource}, {@code mcp.arguments}) cannot change it ({@code caller.kind == "jwt" &&
	 * ...} for a caller of another kind): {@code TRUE} or {@code FALSE}; {@code null} when the item can change it, or
	 * the evaluation fails (each item is then decided on its own).
	 */
	RuleVerdict evaluateForEveryItem(PolicyVariables variables) {
		return evaluateWhatever(variables, ITEM);
	}

	/**
	 * The expression's verdict on {@code variables} whatever the values of the variables or fields {@code unknown}
	 * ({@code caller}, {@code mcp.tool}, ...): {@code TRUE} or {@code FALSE} when they cannot change it; {@code null}
	 * when they can, or the evaluation fails.
	 */
	RuleVerdict evaluateWhatever(PolicyVariables variables, CelAttributePattern[] unknown) {
		try {
			Object result = partial.eval(PartialVars.of(variables, unknown));
			return result instanceof Boolean bool ? (bool ? RuleVerdict.TRUE : RuleVerdict.FALSE) : null;
		}
		catch (CelEvaluationException | RuntimeException failure) {
			return null;
		}
	}

	private RuleVerdict run(PolicyVariables variables, boolean argumentsUnknown) {
		Object result;
		try {
			result = argumentsUnknown ? partial.eval(PartialVars.of(variables, ARGUMENTS)) : program.eval(variables);
		}
		catch (CelEvaluationException failure) {
			UnreadableValue unreadable = unreadable(failure);
			return RuleVerdict.error(unreadable != null ? unreadable.kind()
					: failure.getErrorCode() == null ? RuleVerdict.INTERNAL
							: failure.getErrorCode().name().toLowerCase(java.util.Locale.ROOT));
		}
		catch (RuntimeException failure) {
			UnreadableValue unreadable = unreadable(failure);
			return RuleVerdict.error(unreadable != null ? unreadable.kind() : RuleVerdict.INTERNAL);
		}
		if (result instanceof Boolean bool) {
			return bool ? RuleVerdict.TRUE : RuleVerdict.FALSE;
		}
		return result instanceof CelUnknownSet ? RuleVerdict.UNKNOWN : RuleVerdict.error(RuleVerdict.NOT_A_BOOL);
	}

	/**
	 * The value no rule can judge ({@link UnreadableValue}: a header whose lines differ, a number beyond CEL's) whose
	 * read is, or CEL wrapped, {@code failure}; {@code null} for any other failure.
	 */
	private static UnreadableValue unreadable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof UnreadableValue unreadable) {
				return unreadable;
			}
		}
		return null;
	}

}
