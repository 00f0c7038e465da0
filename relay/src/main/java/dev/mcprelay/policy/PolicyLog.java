package dev.mcprelay.policy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy engine's log lines: client text quoted and escaped (a tool name a client chose cannot forge a line), and a
 * policy whose expression fails at run time logged at most once a minute (every failure is counted), so that a flood of
 * tokens without a claim cannot flood the log.
 */
final class PolicyLog {

	private static final Logger log = LoggerFactory.getLogger(Policies.class);

	private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(1);

	private static final Map<String, Long> lastFailureLogged = new ConcurrentHashMap<>();

	private PolicyLog() {
	}

	/** A policy's expression failed at run time with CEL's {@code message}: it refused. */
	static void failure(String policy, String message) {
		long now = System.nanoTime();
		Long last = lastFailureLogged.get(policy);
		if (last == null || now - last > QUIET_NANOS) {
			lastFailureLogged.put(policy, now);
			log.warn("Policy '{}' failed at run time and refused (counted in mcp_relay_policy_decisions_total, logged "
					+ "once a minute): {}", policy, quote(message));
		}
	}

	/** {@code text} in quotes, control characters, quotes and backslashes escaped, at most 200 characters. */
	static String quote(String text) {
		if (text == null) {
			return "-";
		}
		StringBuilder quoted = new StringBuilder(Math.min(text.length(), 200) + 2).append('"');
		for (int i = 0; i < text.length() && i < 200; i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (c < 0x20 || c == 0x7f) {
				quoted.append(String.format("\\u%04x", (int) c));
			}
			else {
				quoted.append(c);
			}
		}
		if (text.length() > 200) {
			quoted.append("...");
		}
		return quoted.append('"').toString();
	}

}
