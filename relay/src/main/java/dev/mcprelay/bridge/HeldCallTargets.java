package dev.mcprelay.bridge;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a call held for its client's retry ({@link HeldCalls}) is a call of: its method, the tool, prompt or resource it
 * names ({@code name}, {@code uri}) and its {@code arguments}, as a digest signed into the call's {@code requestState}.
 * A retry carrying that state must name the same, else it is refused (-32602) and nothing is sent: the held call's
 * result would otherwise answer whatever the retry named, through that request's response stages, policies and logs
 * (review 46e, N4: {@code tools/call nope}, {@code prompts/get}, {@code resources/read file:///etc/passwd} carrying
 * {@code ask}'s state all got {@code ask}'s result). A 2026-07-28 retry is the same request again, so a client that
 * follows the protocol always matches. Never fails.
 */
final class HeldCallTargets {

	private HeldCallTargets() {
	}

	/** The digest of what {@code call} (a {@code tools/call}, {@code prompts/get} or {@code resources/read}) names. */
	static String of(ObjectNode call) {
		JsonNode params = call.path("params");
		StringBuilder named = new StringBuilder(call.path("method").asText()).append('\n')
			.append(params.path("name").asText()).append('\n')
			.append(params.path("uri").asText()).append('\n');
		JsonNode arguments = params.path("arguments");
		if (!arguments.isMissingNode() && !arguments.isNull()) {
			canonical(arguments, named);
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(named.toString()
				.getBytes(StandardCharsets.UTF_8));
			return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException absent) {
			throw new IllegalStateException("SHA-256 is in every JVM", absent);
		}
	}

	/** {@code node} as JSON with every object's members in name order: the same arguments, however ordered. */
	private static void canonical(JsonNode node, StringBuilder into) {
		if (node.isObject()) {
			java.util.List<String> names = new java.util.ArrayList<>();
			node.fieldNames().forEachRemaining(names::add);
			java.util.Collections.sort(names);
			into.append('{');
			for (int i = 0; i < names.size(); i++) {
				into.append(i == 0 ? "" : ",").append(com.fasterxml.jackson.databind.node.TextNode.valueOf(names.get(i)))
					.append(':');
				canonical(node.get(names.get(i)), into);
			}
			into.append('}');
		}
		else if (node.isArray()) {
			into.append('[');
			for (int i = 0; i < node.size(); i++) {
				into.append(i == 0 ? "" : ",");
				canonical(node.get(i), into);
			}
			into.append(']');
		}
		else {
			into.append(node);
		}
	}

}
