package dev.mcprelay.policy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.LogText;

/**
 * The policy engine's log lines: client text quoted and escaped (a tool name a client chose cannot forge a line), and a
 * policy whose expression fails at run time logged at most once a minute (every failure is counted), so that a flood of
 * tokens without a claim cannot flood the log; a failure is logged by its kind, never with the values CEL's message
 * quotes.
 */
final class PolicyLog {

	private static final Logger log = LoggerFactory.getLogger(Policies.class);

	private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(1);

	private static final Map<String, Long> lastFailureLogged = new ConcurrentHashMap<>();

	private PolicyLog() {
	}

	/** What a run-time failure made of the message, as the log line says it. */
	enum Consequence {

		/** An enforced policy failed on a request: it was refused. */
		REFUSED("the request was refused"),

		/** An enforced policy failed on a listed item: it was left out of the list. */
		HIDDEN("the item was left out of the list"),

		/** An audit-mode policy failed: counted as what it would refuse; nothing was refused. */
		AUDITED("audit mode: nothing was refused");

		private final String text;

		Consequence(String text) {
			this.text = text;
		}

	}

	/**
	 * A policy's expression failed at run time with an error of {@code kind} ({@link RuleVerdict#error()}), with
	 * {@code consequence}. Only the kind is logged, never CEL's message, which can quote what the expression read (a
	 * header, a claim).
	 */
	static void failure(String policy, String kind, Consequence consequence) {
		long now = System.nanoTime();
		Long last = lastFailureLogged.get(policy);
		if (last == null || now - last > QUIET_NANOS) {
			lastFailureLogged.put(policy, now);
			log.warn("Policy '{}' failed at run time ({}), {} (every failure is counted in "
					+ "mcp_relay_policy_decisions_total{outcome=\"error\"}; logged once a minute)", policy, kind,
					consequence.text);
		}
	}

	/**
	 * The list {@code list} of {@code server}, which its policies need to decide a request, could not be listed
	 * ({@code failure}): logged once a minute per server and list (each request refused for it is counted).
	 */
	static void unlisted(String server, String list, Throwable failure) {
		long now = System.nanoTime();
		String key = "\n" + server + "\n" + list;
		Long last = lastFailureLogged.get(key);
		if (last == null || now - last > QUIET_NANOS) {
			lastFailureLogged.put(key, now);
			log.warn("The {} of server '{}' could not be listed, and the policies that read what it lists cannot "
					+ "decide without it: requests an enforced policy needs it for are refused "
					+ "(reason=policy_undecidable), audit-mode ones decide from what is kept or count an error "
					+ "(mcp_relay_policy_decisions_total{outcome=\"error\"}; logged once a minute): {}", list, server,
					quote(String.valueOf(failure.getMessage())));
		}
	}

	/** {@code text} as a log line may carry it ({@link LogText#quote}). */
	static String quote(String text) {
		return LogText.quote(text);
	}

}
