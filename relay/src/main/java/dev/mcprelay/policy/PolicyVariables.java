package dev.mcprelay.policy;

import java.util.Map;
import java.util.Optional;

import dev.cel.runtime.CelVariableResolver;

/**
 * The variables of one message or listed item as its expressions resolve them ({@code caller}, {@code server},
 * {@code mcp}, {@code request}: {@link PolicyEnvironment}), each made of its {@link PolicyFacts} the first time an
 * expression reads it, and kept for the other rules that decide the same message: a variable that no rule run on the
 * message reads is never made (a call decided by rules on its arguments and its headers makes neither {@code caller}
 * nor {@code server}). What each variable holds is what {@link PolicyFacts} makes of the facts, whichever rule reads it
 * first. One per message (or item), used on the thread that decides it; not thread-safe.
 */
final class PolicyVariables implements CelVariableResolver {

	private final PolicyFacts facts;

	/** The variables a list's items share, made once per list; {@code null} to make them of {@link #facts}. */
	private final PolicyFacts.Base base;

	private Optional<Object> caller;

	private Optional<Object> server;

	private Optional<Object> mcp;

	private Optional<Object> request;

	/** The variables of {@code facts}. */
	PolicyVariables(PolicyFacts facts) {
		this(facts, null);
	}

	/** The variables of {@code facts}, {@code caller}, {@code server} and {@code request} those of {@code base}. */
	PolicyVariables(PolicyFacts facts, PolicyFacts.Base base) {
		this.facts = facts;
		this.base = base;
	}

	/** The same variables, but for {@code mcp.arguments}, empty: a call with no arguments. */
	PolicyVariables withEmptyArguments() {
		PolicyVariables empty = new PolicyVariables(facts.withArgumentValues(Map.of()), base);
		empty.caller = caller;
		empty.server = server;
		empty.request = request;
		return empty;
	}

	@Override
	public Optional<Object> find(String name) {
		return switch (name) {
			case "caller" -> caller != null ? caller
					: (caller = Optional.of(base != null ? base.caller() : PolicyFacts.callerOf(facts.caller())));
			case "server" -> server != null ? server
					: (server = Optional.of(base != null ? base.server() : facts.serverValue()));
			case "mcp" -> mcp != null ? mcp : (mcp = Optional.of(facts.mcpValue()));
			case "request" -> request != null ? request
					: (request = Optional.of(base != null ? base.request() : facts.requestValue()));
			default -> Optional.empty();
		};
	}

}
