package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.metrics.RelayOutcome;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Decides which member serves a client request that names something one member published (DESIGN section 11), and
 * what the member is sent: {@code tools/call} and {@code prompts/get} by the name's prefix (the prefix stripped),
 * {@code completion/complete} by its reference, {@code resources/read}, {@code resources/subscribe} and
 * {@code resources/unsubscribe} by the member that lists the URI (or a template that matches it). Where prefixes
 * leave more than one member possible, the members' own lists decide, configuration order first. What the members
 * publish is kept per caller ({@link PublishedNames}), not asked again per session. An unknown name is
 * the error a server gives for one (-32602); an unknown or ambiguous URI is -32002 naming the candidates; never a
 * guess.
 */
@Component
class MemberTargets {

	private final PublishedNames published;

	MemberTargets(PublishedNames published) {
		this.published = published;
	}

	/** Where a request goes: the member and the message to send it, or the error to answer the client with. */
	record Target(String member, ObjectNode message, ObjectNode error) {

		static Target to(String member, ObjectNode message) {
			return new Target(member, message, null);
		}

		static Target refused(ObjectNode error) {
			return new Target(null, null, error);
		}

	}

	static boolean isRouted(String method) {
		return switch (method) {
			case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe",
					"completion/complete" -> true;
			default -> false;
		};
	}

	/**
	 * Where {@code request} goes. A member whose list cannot be read (it is unavailable) is taken as publishing
	 * nothing; a listing the member's bound refuses ({@link PublishedNames}: {@code listing_refused}) refuses the
	 * request, to be tried again, never answered as an unknown name.
	 */
	Mono<Target> target(VirtualCall call, ObjectNode request) {
		String method = request.get("method").asText();
		JsonNode params = request.path("params");
		Mono<Target> target = switch (method) {
			case "tools/call" -> byName(call, request, params.get("name"), "tools/list", "tool");
			case "prompts/get" -> byName(call, request, params.get("name"), "prompts/list", "prompt");
			case "completion/complete" -> byReference(call, request);
			default -> byUri(call, request, params.get("uri"));
		};
		return target.onErrorResume(RejectError.class, refused -> {
			call.exchange().record().failed(RelayOutcome.REJECTED, refused.data().path("reason").asText(null));
			return Mono.just(Target.refused(JsonRpcErrors.error(request.get("id"), refused.code(),
					refused.getMessage(), refused.data())));
		});
	}

	/** What a member publishes in {@code list} to the request; nothing when it cannot say (a refusal goes on). */
	private Mono<Set<String>> publishedBy(VirtualCall call, String member, String list) {
		return published.of(call, member, list)
			.onErrorResume(failure -> !(failure instanceof RejectError), failure -> Mono.just(Set.of()));
	}

	/** The member of a prefixed name, and the request with the name it published. */
	private Mono<Target> byName(VirtualCall call, ObjectNode request, JsonNode name, String list, String kind) {
		JsonNode id = request.get("id");
		if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
			return Mono.just(Target.refused(JsonRpcErrors.error(id, JsonRpcErrorCodes.INVALID_PARAMS,
					"The " + kind + " name is missing or empty", Map.of("reason", "invalid_name"))));
		}
		String exposed = name.textValue();
		List<String> candidates = call.server().candidates(exposed, call.usable());
		Mono<String> member = candidates.size() == 1 ? Mono.just(candidates.get(0))
				: Flux.fromIterable(candidates)
					.flatMapSequential(candidate -> publishedBy(call, candidate, list)
						.filter(names -> names.contains(call.server().memberName(candidate, exposed)))
						.map(names -> candidate))
					.next();
		// the error made only for a name no member publishes, not for every call routed
		return member.map(chosen -> Target.to(chosen, renamed(request, chosen, call.server(), exposed)))
			.switchIfEmpty(Mono.fromSupplier(() -> Target.refused(JsonRpcErrors.error(id,
					JsonRpcErrorCodes.INVALID_PARAMS, "Unknown " + kind + ": " + exposed,
					Map.of("reason", "unknown_" + kind)))));
	}

	/** {@code request} with the name the member published in place of the one the client sent. */
	private static ObjectNode renamed(ObjectNode request, String member, VirtualServer server, String exposed) {
		String own = server.memberName(member, exposed);
		if (own.equals(exposed)) {
			return request;
		}
		ObjectNode copy = request.deepCopy();
		JsonNode params = copy.get("params");
		if ("completion/complete".equals(copy.path("method").asText())) {
			((ObjectNode) params.get("ref")).put("name", own);
		}
		else {
			((ObjectNode) params).put("name", own);
		}
		return copy;
	}

	private Mono<Target> byReference(VirtualCall call, ObjectNode request) {
		JsonNode ref = request.path("params").path("ref");
		String type = ref.path("type").asText("");
		if (type.equals("ref/prompt")) {
			return byName(call, request, ref.get("name"), "prompts/list", "prompt");
		}
		if (type.equals("ref/resource")) {
			return byUri(call, request, ref.get("uri"));
		}
		return Mono.just(Target.refused(JsonRpcErrors.error(request.get("id"), JsonRpcErrorCodes.INVALID_PARAMS,
				"completion/complete needs a ref of type ref/prompt or ref/resource", Map.of("reason", "invalid_ref"))));
	}

	/** The member that lists {@code uri}, or else the one whose template matches it. */
	private Mono<Target> byUri(VirtualCall call, ObjectNode request, JsonNode uri) {
		JsonNode id = request.get("id");
		if (uri == null || !uri.isTextual() || uri.textValue().isEmpty()) {
			return Mono.just(Target.refused(JsonRpcErrors.error(id, JsonRpcErrorCodes.INVALID_PARAMS,
					"The resource URI is missing or empty", Map.of("reason", "invalid_uri"))));
		}
		String wanted = uri.textValue();
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> Mono.zip(
					publishedBy(call, member, "resources/list"),
					publishedBy(call, member, "resources/templates/list"))
				.map(both -> new Publisher(member, both.getT1().contains(wanted),
						both.getT2().stream().anyMatch(template -> matches(template, wanted)))))
			.collectList()
			.map(publishers -> {
				List<String> exact = new ArrayList<>();
				List<String> templated = new ArrayList<>();
				publishers.forEach(publisher -> {
					if (publisher.lists()) {
						exact.add(publisher.member());
					}
					else if (publisher.matchesTemplate()) {
						templated.add(publisher.member());
					}
				});
				List<String> candidates = exact.isEmpty() ? templated : exact;
				if (candidates.size() == 1) {
					return Target.to(candidates.get(0), request);
				}
				// no member lists it: the candidates are every member asked, so the client knows whom to ask directly
				List<String> named = candidates.isEmpty() ? publishers.stream().map(Publisher::member).toList() : candidates;
				String message = candidates.isEmpty() ? "Resource not found: " + wanted + " (no member lists it: "
						+ String.join(", ", named) + ")"
						: "Resource " + wanted + " is published by several members (" + String.join(", ", candidates)
								+ "); ask each of them through its own endpoint";
				return Target.refused(JsonRpcErrors.error(id, RESOURCE_NOT_FOUND, message,
						Map.of("reason", candidates.isEmpty() ? "unknown_resource" : "ambiguous_resource", "candidates",
								String.join(",", named))));
			});
	}

	/** MCP's code for a resource that does not exist. */
	static final int RESOURCE_NOT_FOUND = -32002;

	private record Publisher(String member, boolean lists, boolean matchesTemplate) {
	}

	/**
	 * Whether {@code uri} is one {@code template} (RFC 6570) produces: each expression matches a run of characters
	 * ({@code {+x}} and {@code {#x}} may cross {@code /}, others not).
	 */
	static boolean matches(String template, String uri) {
		if (template == null || template.isEmpty()) {
			return false;
		}
		StringBuilder regex = new StringBuilder();
		int at = 0;
		while (at < template.length()) {
			int open = template.indexOf('{', at);
			if (open < 0) {
				regex.append(Pattern.quote(template.substring(at)));
				break;
			}
			int close = template.indexOf('}', open);
			if (close < 0) {
				return false;
			}
			regex.append(Pattern.quote(template.substring(at, open)));
			char operator = close > open + 1 ? template.charAt(open + 1) : ' ';
			regex.append(operator == '+' || operator == '#' ? ".*" : "[^/]*");
			at = close + 1;
		}
		return Pattern.matches(regex.toString(), uri);
	}

}
