package dev.mcprelay.virtual;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.proxy.RelayFailures;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a virtual server does for MCP 2026-07-28 clients, which keep no session: each request carries its protocol
 * version and capabilities in {@code _meta} and goes to the members as it came, per request. {@code server/discover}
 * is asked of every usable member and merged (the versions all of them support, the union of capabilities, the
 * shortest time to live, {@code private} when any is, each member's instructions under its heading);
 * {@code subscriptions/listen} is sent to every usable member and their streams are merged ({@link MergedListen}).
 */
@Component
class StatelessRequests {

	private final MemberRequests requests;

	private final MemberAvailability availability;

	StatelessRequests(MemberRequests requests, MemberAvailability availability) {
		this.requests = requests;
		this.availability = availability;
	}

	/**
	 * Whether a message that came without a session is a 2026-07-28 client's: it names its protocol version in
	 * {@code _meta} or the header, or asks {@code server/discover}.
	 */
	static boolean isStateless(JsonRpcMessage message, HttpHeaders headers) {
		if ("server/discover".equals(message.method())) {
			return true;
		}
		if (message.node().path("params").path("_meta").has(McpMeta.PROTOCOL_VERSION)) {
			return true;
		}
		String version = headers.getFirst("MCP-Protocol-Version");
		return version != null && version.compareTo("2026-07-28") >= 0;
	}

	/** {@code server/discover}: every usable member's answer, merged. */
	Mono<ObjectNode> discover(VirtualCall call, ObjectNode request, String version) {
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> requests.request(call, member, request)
				.map(MemberRequests.Reply::response)
				.filter(response -> response.get("result") instanceof ObjectNode)
				.map(response -> new MemberJoin.Joined(member, MemberSession.NONE, (ObjectNode) response.get("result")))
				.onErrorResume(MemberUnavailable.class, failure -> {
					availability.unavailable(call.server().id(), failure);
					return Mono.empty();
				}), Math.max(1, call.usable().size()))
			.collectList()
			.flatMap(found -> found.isEmpty() ? Mono.error(RelayFailures.noMemberAvailable(call.server().id()))
					: Mono.just(merged(call, request.get("id"), version, found)));
	}

	private static ObjectNode merged(VirtualCall call, JsonNode id, String version, List<MemberJoin.Joined> found) {
		ObjectNode first = found.get(0).result();
		ObjectNode result = first.deepCopy();
		ObjectNode initializeLike = InitializeMerge.result(call.server().id(), version, null, found);
		result.set("capabilities", initializeLike.get("capabilities"));
		if (initializeLike.has("instructions")) {
			result.set("instructions", initializeLike.get("instructions"));
		}
		else {
			result.remove("instructions");
		}
		if (result.has("serverInfo")) {
			result.set("serverInfo", initializeLike.get("serverInfo"));
		}
		Set<String> versions = versions(first);
		for (MemberJoin.Joined member : found.subList(1, found.size())) {
			versions.retainAll(versions(member.result()));
		}
		if (first.has("supportedVersions")) {
			ArrayNode supported = result.putArray("supportedVersions");
			(versions.isEmpty() ? versions(first) : versions).forEach(supported::add);
		}
		result.remove("ttlMs");
		result.remove("cacheScope");
		ResultFields.merge(result, found.stream().map(MemberJoin.Joined::result).toList());
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		response.set("result", result);
		return response;
	}

	private static Set<String> versions(ObjectNode result) {
		Set<String> versions = new LinkedHashSet<>();
		result.path("supportedVersions").forEach(version -> versions.add(version.asText()));
		return versions;
	}

}
