package dev.mcprelay.policy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.cel.runtime.CelAttributePattern;
import dev.mcprelay.api.Caller;

/**
 * The verdicts of the rules that a message's caller and what it names (the tool and the definition its server
 * published, the prompt) decide whatever the rest, worked out once per caller, kind of message ({@link CallVerdicts}:
 * server, virtual server, method, direction) and item, and not on every message: {@code caller.kind == "anonymous" ||
 * caller.scopes.exists(s, s == "mcp")}, {@code mcp.tool.name in ["echo", "get"]},
 * {@code mcp.tool.annotations.?readOnlyHint.orValue(false) || caller.kind == "jwt"}. What still varies from one such
 * message to the next is the request's headers, the resource a message names and a call's arguments; a verdict is
 * kept only when CEL, those unknown, gives a bool (one no value of them can change), so a rule that reads them is run
 * on each message as before, and each decision is the one every rule run on the message gives. A rule that reads a
 * tool's annotations, for a tool whose definition the relay does not know, is run on the message (and fails closed).
 *
 * <p>Keyed by the caller object itself, held weakly: the front door makes one {@link Caller} per API key and one per
 * token it accepted and keeps ({@code ValidatedTokens}), so a caller's verdicts live while its object does, and
 * nothing of the caller (no id, claim or scope, no digest of them) is copied or kept here. A caller made anew for each
 * request would only miss. What a caller's messages name is kept only where a rule left to run reads it, and the
 * tools and prompts such rules read are those the server published (a name it did not publish is refused before any
 * rule runs); at most {@value #MAX_CALLERS} callers (those used least recently forgotten first) and
 * {@value #MAX_PER_CALLER} kinds and items each (past that, the rules run on the message). Kept for the life of the
 * policies (one configuration snapshot). Thread-safe.
 */
final class CallerVerdicts {

	static final int MAX_CALLERS = 1_024;

	static final int MAX_PER_CALLER = 256;

	/** What still varies between the messages one caller sends naming one item. */
	private static final CelAttributePattern[] VARYING = { CelAttributePattern.fromQualifiedIdentifier("request"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.resource"),
			CelAttributePattern.fromQualifiedIdentifier("mcp.arguments") };

	/** A kind of message and what its messages name, as far as the rules left to run read it. */
	private record Item(CallVerdicts.Kind kind, String tool, Map<String, Object> annotations, String prompt) {
	}

	private final Cache<Caller, Map<Item, RuleVerdict[]>> kept = Caffeine.newBuilder()
		.weakKeys()
		.maximumSize(MAX_CALLERS)
		.executor(Runnable::run)
		.build();

	/**
	 * The verdicts, by index in {@code governing}, that hold for every message of {@code facts}' caller, kind and item:
	 * {@code kind}'s, and those its caller and item decide; {@code null} entries for the rules to run on it.
	 */
	RuleVerdict[] of(List<Policy> governing, PolicyFacts facts, CallVerdicts.Kept kind) {
		Caller caller = facts.caller();
		if (kind.complete() || caller == null) {
			return kind.verdicts();
		}
		Item item = new Item(kind.kind(), kind.tool() ? facts.tool() : null, kind.tool() ? facts.annotations() : null,
				kind.prompt() ? facts.prompt() : null);
		Map<Item, RuleVerdict[]> byItem = kept.get(caller, any -> new ConcurrentHashMap<>());
		RuleVerdict[] verdicts = byItem.get(item);
		if (verdicts == null) {
			verdicts = workOut(governing, facts, kind.verdicts());
			if (byItem.size() < MAX_PER_CALLER) {
				byItem.putIfAbsent(item, verdicts);
			}
		}
		return verdicts;
	}

	private static RuleVerdict[] workOut(List<Policy> governing, PolicyFacts facts, RuleVerdict[] ofKind) {
		RuleVerdict[] fixed = ofKind.clone();
		PolicyVariables variables = null;
		for (int i = 0; i < governing.size(); i++) {
			if (fixed[i] == null && governing.get(i).rule() instanceof CelRule rule
					&& !(facts.tool() != null && facts.annotations() == null && rule.readsAnnotations())) {
				variables = variables == null ? facts.variables() : variables;
				fixed[i] = rule.expression().evaluateWhatever(variables, VARYING);
			}
		}
		return fixed;
	}

}
