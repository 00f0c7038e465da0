package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;

/**
 * What a virtual session was opened under, kept with it in the session store ({@link VirtualSessions#open}) so that
 * every replica sharing the store judges alike whether the session still holds, whichever replica joined its members
 * and whether that one still runs: its virtual server's settings as written ({@code members}, {@code tool-prefix},
 * {@code prefix}, {@code tool-search}). A session holds while the virtual server's settings in the request's snapshot
 * are those, but for mentions of servers that snapshot no longer has (a removed server's mentions leave with it, as
 * they leave a {@link VirtualServerVersion} as it was); otherwise the virtual server changed since, and the session
 * ended with the version it was opened on.
 *
 * <p>The terms are a small JSON object, the same text on every replica for the same settings. A session stored
 * without terms (by a relay of an earlier version) is judged to hold: the joining replica's own reload ends it.
 */
final class VirtualSessionTerms {

	private VirtualSessionTerms() {
	}

	/**
	 * The terms of a session of a virtual server with {@code virtual}'s settings, as stored: made once per
	 * configuration ({@link VirtualServer#terms()}), not per request.
	 */
	static String of(VirtualServerProperties virtual) {
		return text(virtual);
	}

	/**
	 * Whether a session stored with {@code stored} terms still holds where its virtual server's terms are now
	 * {@code now} ({@link VirtualServer#terms()} of the request's snapshot) among the servers of {@code properties}:
	 * the settings the session was opened under, less its mentions of servers {@code properties} no longer has.
	 */
	static boolean hold(String stored, String now, RelayProperties properties) {
		if (stored == null || stored.equals(now)) {
			return true;
		}
		ObjectNode was = MemberMessages.parse(stored.getBytes(StandardCharsets.UTF_8));
		if (was == null) {
			return false;
		}
		Set<String> servers = properties.servers().keySet();
		ObjectNode left = was.deepCopy();
		ArrayNode members = left.putArray("members");
		was.path("members").forEach(member -> {
			if (member.asText().equals("*") || servers.contains(member.asText())) {
				members.add(member);
			}
		});
		ObjectNode prefix = left.putObject("prefix");
		was.path("prefix").properties().forEach(entry -> {
			if (servers.contains(entry.getKey())) {
				prefix.set(entry.getKey(), entry.getValue());
			}
		});
		return left.equals(MemberMessages.parse(now.getBytes(StandardCharsets.UTF_8)));
	}

	private static String text(VirtualServerProperties virtual) {
		ObjectNode terms = JsonNodeFactory.instance.objectNode();
		ArrayNode members = terms.putArray("members");
		virtual.members().forEach(members::add);
		terms.put("tool-prefix", virtual.toolPrefix());
		ObjectNode prefix = terms.putObject("prefix");
		new TreeMap<>(virtual.prefix()).forEach(prefix::put);
		terms.put("tool-search", virtual.toolSearch().toString());
		return new String(JsonRpcErrors.toBytes(terms), StandardCharsets.UTF_8);
	}

}
