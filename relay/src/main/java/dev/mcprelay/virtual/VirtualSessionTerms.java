package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.VirtualServerProperties;

/**
 * What a virtual session was opened under, kept with it in the session store ({@link VirtualSessions#open}) so that
 * every replica sharing the store judges alike whether the session still holds, whichever replica joined its members
 * and whether that one still runs: its virtual server's settings as written ({@code members}, {@code tool-prefix},
 * {@code prefix}, {@code tool-search}).
 *
 * <p>A session is judged as its version is ({@link VirtualServerVersion}): it ended when this replica itself replaced
 * the version whose terms it keeps (its terms are {@linkplain VirtualServerVersion#retired retired} here); it holds
 * when they are terms of the virtual server's version in the request's snapshot (of any configuration of that version:
 * a removed server's mention that left with it, and the server added back later, change the terms, not the version).
 * Terms this replica never ran hold too, served on this replica's settings: while replicas disagree (one applied a
 * reload the other has not read yet), the replica behind must not end the sessions opened under the newer settings,
 * which it cannot tell from older ones; the replica that applied the change ends the sessions of the settings it
 * replaced. A session stored without terms (by a relay of an earlier version) holds: the joining replica's own reload
 * ends it.
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
	 * Whether a session stored with {@code stored} terms still holds for {@code server}, its virtual server in the
	 * request's snapshot: unless a version of it this replica replaced had those terms.
	 */
	static boolean hold(String stored, VirtualServer server) {
		return stored == null || !server.version().retired(stored);
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
