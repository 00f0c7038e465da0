package dev.mcprelay.policy;

import java.util.Map;

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

	private final String source;

	private final CelRuntime.Program program;

	private final PolicyInputs inputs;

	PolicyExpression(String source, CelRuntime.Program program, PolicyInputs inputs) {
		this.source = source;
		this.program = program;
		this.inputs = inputs;
	}

	String source() {
		return source;
	}

	PolicyInputs inputs() {
		return inputs;
	}

	/**
	 * The expression's verdict on {@code activation} (the variables {@code caller}, {@code server}, {@code mcp},
	 * {@code request}).
	 * @param argumentsKnown whether {@code mcp.arguments} is known (a call), or not (an item being listed)
	 */
	RuleVerdict evaluate(Map<String, Object> activation, boolean argumentsKnown) {
		Object result;
		try {
			result = argumentsKnown || !inputs.arguments() ? program.eval(activation)
					: program.eval(PartialVars.of(activation, ARGUMENTS));
		}
		catch (CelEvaluationException | RuntimeException failure) {
			return RuleVerdict.error(failure.getMessage());
		}
		if (result instanceof Boolean bool) {
			return bool ? RuleVerdict.TRUE : RuleVerdict.FALSE;
		}
		return result instanceof CelUnknownSet ? RuleVerdict.UNKNOWN : RuleVerdict.error("not a bool: " + result);
	}

}
