package dev.mcprelay.virtual;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * The {@code initialize} result a virtual server answers with, from its members' (DESIGN section 11): its own
 * {@code serverInfo}, the union of the members' capabilities (objects merged, a flag true when any member's is), the
 * protocol version the client asked for when a member speaks it (else the newest a member negotiated), and each
 * member's instructions under a heading of its id.
 */
final class InitializeMerge {

	private InitializeMerge() {
	}

	static ObjectNode result(String virtualId, String version, String requestedVersion, List<MemberJoin.Joined> joined) {
		ObjectNode result = JsonRpcParser.mapper().createObjectNode();
		result.put("protocolVersion", protocolVersion(requestedVersion, joined));
		ObjectNode capabilities = result.putObject("capabilities");
		StringBuilder instructions = new StringBuilder();
		for (MemberJoin.Joined member : joined) {
			if (member.result().get("capabilities") instanceof ObjectNode theirs) {
				merge(capabilities, theirs);
			}
			String theirInstructions = member.result().path("instructions").asText("");
			if (!theirInstructions.isBlank()) {
				if (!instructions.isEmpty()) {
					instructions.append("\n\n");
				}
				instructions.append("## ").append(member.member()).append("\n\n").append(theirInstructions.strip());
			}
		}
		ObjectNode serverInfo = result.putObject("serverInfo");
		serverInfo.put("name", virtualId);
		serverInfo.put("title", "mcp-relay virtual server " + virtualId);
		serverInfo.put("version", version);
		if (!instructions.isEmpty()) {
			result.put("instructions", instructions.toString());
		}
		return result;
	}

	private static String protocolVersion(String requested, List<MemberJoin.Joined> joined) {
		String newest = null;
		for (MemberJoin.Joined member : joined) {
			String theirs = member.session().protocolVersion();
			if (theirs == null) {
				continue;
			}
			if (theirs.equals(requested)) {
				return requested;
			}
			// Versions are dates (YYYY-MM-DD): text order is time order.
			if (newest == null || theirs.compareTo(newest) > 0) {
				newest = theirs;
			}
		}
		return newest != null ? newest : requested;
	}

	/** Merges {@code theirs} into {@code into}: objects field by field, {@code true} wins over {@code false}. */
	static void merge(ObjectNode into, ObjectNode theirs) {
		Iterator<Map.Entry<String, JsonNode>> fields = theirs.fields();
		while (fields.hasNext()) {
			Map.Entry<String, JsonNode> field = fields.next();
			JsonNode ours = into.get(field.getKey());
			JsonNode value = field.getValue();
			if (ours == null) {
				into.set(field.getKey(), value.deepCopy());
			}
			else if (ours instanceof ObjectNode ourObject && value instanceof ObjectNode theirObject) {
				merge(ourObject, theirObject);
			}
			else if (ours.isBoolean() && value.isBoolean() && value.booleanValue()) {
				into.put(field.getKey(), true);
			}
		}
	}

}
