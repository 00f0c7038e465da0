package dev.mcprelay.policy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.cel.runtime.CelAttributePattern;

/**
 * The verdicts of the rules that what varies from one request to the next cannot change, worked out once per server,
 * virtual server and kind of message, and not on every message (as {@link PolicyListing} works out once per list what
 * its items cannot change). What varies is the caller, the request's headers, and what the message names (the tool,
 * prompt or resource) and its arguments; what is fixed is the server, the virtual server, the method and the
 * direction, and which of the item's fields the message leaves empty. A rule such as {@code server.virtual ==
 * "quarantine"}, {@code mcp.direction == "server_to_client" && ...} or {@code mcp.prompt.name == "x"} (for a
 * {@code tools/call}, whose prompt is empty) is then decided by its kept verdict; any other is left to the message
 * (where its caller and what it names may decide it, once per caller: {@link CallerVerdicts}).
 * A verdict is kept only when CEL, the varying parts unknown, gives a bool: one no value of them can change. Rules
 * that read a tool's annotations are always run (a call of a tool the relay does not know fails them). Kept for the
 * life of the policies (of one configuration); at most {@value #MAX_KEPT} kinds of message (the methods a policy
 * decides are the relay's own, the servers configured: far fewer). Thread-safe.
 */
final class CallVerdicts {

	static final int MAX_KEPT = 1_000;

	private static final CelAttributePattern CALLER = CelAttributePattern.fromQualifiedIdentifier("caller");

	private static final CelAttributePattern REQUEST = CelAttributePattern.fromQualifiedIdentifier("request");

	private static final CelAttributePattern TOOL = CelAttributePattern.fromQualifiedIdentifier("mcp.tool");

	private static final CelAttributePattern PROMPT = CelAttributePattern.fromQualifiedIdentifier("mcp.prompt");

	private static final CelAttributePattern RESOURCE = CelAttributePattern.fromQualifiedIdentifier("mcp.resource");

	private static final CelAttributePattern ARGUMENTS = CelAttributePattern.fromQualifiedIdentifier("mcp.arguments");

	/** A kind of message: what every message of it shares, and which of its item's fields it names. */
	record Kind(String server, String virtualServer, String method, boolean fromServer, boolean tool,
			boolean prompt, boolean resource, boolean arguments) {

		static Kind of(PolicyFacts facts) {
			return new Kind(facts.server(), facts.virtualServer(), facts.method(), facts.fromServer(),
					facts.tool() != null || facts.annotations() != null, facts.prompt() != null,
					facts.resource() != null, facts.arguments() != null);
		}

		CelAttributePattern[] varying() {
			CelAttributePattern[] patterns = new CelAttributePattern[2 + count(tool, prompt, resource, arguments)];
			int i = 0;
			patterns[i++] = CALLER;
			patterns[i++] = REQUEST;
			if (tool) {
				patterns[i++] = TOOL;
			}
			if (prompt) {
				patterns[i++] = PROMPT;
			}
			if (resource) {
				patterns[i++] = RESOURCE;
			}
			if (arguments) {
				patterns[i] = ARGUMENTS;
			}
			return patterns;
		}

		private static int count(boolean... flags) {
			int count = 0;
			for (boolean flag : flags) {
				count += flag ? 1 : 0;
			}
			return count;
		}

	}

	/**
	 * The verdicts kept for a kind of message, and what the CEL rules left to run on each message read of what it
	 * names ({@link CallerVerdicts} keys what it keeps by these alone).
	 *
	 * @param verdicts by index in the governing policies; {@code null} entries for the rules to run on the message
	 * @param complete whether every CEL rule has a kept verdict
	 * @param tool whether a CEL rule left reads the tool ({@code mcp.tool})
	 * @param prompt whether a CEL rule left reads the prompt ({@code mcp.prompt})
	 */
	record Kept(Kind kind, RuleVerdict[] verdicts, boolean complete, boolean tool, boolean prompt) {
	}

	private final Map<Kind, Kept> kept = new ConcurrentHashMap<>();

	/**
	 * The verdicts, by index in {@code governing} (the policies that govern {@code facts}' server and virtual server),
	 * that hold for every message of the kind of {@code facts}; {@code null} entries for the rules to run on it.
	 */
	RuleVerdict[] of(List<Policy> governing, PolicyFacts facts) {
		return kept(governing, facts).verdicts();
	}

	/** {@link #of}, with what the rules left to run on the message read of it. */
	Kept kept(List<Policy> governing, PolicyFacts facts) {
		Kind kind = Kind.of(facts);
		Kept fixed = kept.get(kind);
		if (fixed == null) {
			fixed = workOut(governing, facts, kind);
			if (kept.size() < MAX_KEPT) {
				kept.putIfAbsent(kind, fixed);
			}
		}
		return fixed;
	}

	private static Kept workOut(List<Policy> governing, PolicyFacts facts, Kind kind) {
		RuleVerdict[] fixed = new RuleVerdict[governing.size()];
		PolicyVariables variables = null;
		CelAttributePattern[] varying = kind.varying();
		boolean complete = true;
		boolean tool = false;
		boolean prompt = false;
		for (int i = 0; i < governing.size(); i++) {
			if (governing.get(i).rule() instanceof CelRule rule) {
				if (!rule.readsAnnotations()) {
					variables = variables == null ? facts.variables() : variables;
					fixed[i] = rule.expression().evaluateWhatever(variables, varying);
				}
				if (fixed[i] == null) {
					complete = false;
					tool |= rule.readsTool();
					prompt |= rule.readsPrompt();
				}
			}
		}
		return new Kept(kind, fixed, complete, tool, prompt);
	}

}
