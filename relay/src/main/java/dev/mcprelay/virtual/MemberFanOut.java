package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The client's messages every joined member gets:
 * <ul>
 * <li>a notification, answered 202 once every member it goes to has it ({@link MemberNotifications}: a cancellation
 * of a member's request reaches that member alone, under the member's id; one of the client's own requests every
 * member, the one that holds the request ends it, the others have none by that id). The client's
 * {@code notifications/initialized} reaches the members it joined now, not when they were joined; then the relay
 * opens each member's stream and holds it for the client's GET
 * ({@link MergedStreams#hold}), before the client has the acknowledgement and can call anything;</li>
 * <li>{@code logging/setLevel}, to every member the caller may use (one not joined is joined for it), kept for those
 * that join later, answered from the members' answers as one server would answer: a result when one
 * member at least took it, with a {@code notifications/message} warning before it for each that did not (when the
 * client takes an event stream); an error for the request when none did (the members' own error when they all gave
 * the same, else -32603 naming each), never a bare success.</li>
 * </ul>
 */
@Component
class MemberFanOut {

	private final MemberRequests requests;

	private final MergedStreams streams;

	private final MemberAvailability availability;

	private final MemberIds ids;

	private final VirtualSessions sessions;

	MemberFanOut(MemberRequests requests, MergedStreams streams, MemberAvailability availability, MemberIds ids,
			VirtualSessions sessions) {
		this.sessions = sessions;
		this.ids = ids;
		this.requests = requests;
		this.streams = streams;
		this.availability = availability;
	}

	/**
	 * A notification of the client's, to the members {@link MemberNotifications} names (a cancellation of a member's
	 * request to that member alone, under its id; a refusal when this session never gave the id it names).
	 */
	Mono<Void> notify(VirtualCall call, JsonRpcMessage message) {
		boolean initialized = "notifications/initialized".equals(message.method());
		MemberNotifications.Delivery delivery = MemberNotifications.of(call, message, ids);
		// sent again in a member's new session, but for what only its lost session knew
		boolean again = !initialized && !delivery.sessionBound();
		Mono<Void> sent = Flux.fromIterable(delivery.members())
			.filter(call::reachable)
			.flatMap(member -> requests.post(call, member, delivery.body(), again)
				.flatMap(answered -> {
					// a notification's answer carries nothing: what a join tells the client waits for the next request
					requests.untold(call, member, answered.notices());
					return answered.answer() == null ? Mono.empty() : answered.answer().discard();
				})
				.onErrorResume(error -> Mono.empty()))
			.then();
		return sent.then(Mono.defer(() -> {
			if (!call.stateless() && initialized) {
				streams.hold(call);
			}
			return accepted(call);
		}));
	}

	/** A member's answer to {@code logging/setLevel}: its response, or what kept it from answering. */
	private record Answered(String member, ObjectNode response, List<ObjectNode> notices, MemberUnavailable failure) {

		boolean took() {
			return response != null && response.get("result") instanceof ObjectNode;
		}

		/** What the member said instead of taking it. */
		String refusal() {
			return failure != null ? failure.getMessage()
					: "Member '" + member + "' did not set its logging level: "
							+ response.path("error").path("message").asText("no result");
		}

	}

	/**
	 * {@code logging/setLevel}, to every member the caller may use: one not joined yet (down, or failing) is joined
	 * for it ({@link MemberRequests}), and one that cannot be is named in a warning. The level is kept in the session
	 * first, for a member that joins later or again ({@link MemberJoins}).
	 */
	Mono<Void> setLevel(VirtualCall call, ObjectNode request) {
		JsonNode id = request.get("id");
		List<String> members = call.usable();
		String level = request.path("params").path("level").asText(null);
		Mono<Void> kept = call.stateless() || level == null ? Mono.empty()
				: sessions.loggingLevel(call.server().id(), call.sessionId(), level);
		return kept.thenMany(Flux.fromIterable(members))
			.flatMapSequential(member -> requests.request(call, member, request)
				.map(reply -> new Answered(member, reply.response(), reply.notices(), null))
				.onErrorResume(MemberUnavailable.class, failure -> {
					availability.unavailable(call.server().id(), failure);
					return Mono.just(new Answered(member, null, List.of(), failure));
				}), Math.max(1, members.size()))
			.collectList()
			.flatMap(answers -> {
				List<ObjectNode> told = new ArrayList<>();
				answers.forEach(answer -> told.addAll(answer.notices()));
				List<Answered> refused = answers.stream().filter(answer -> !answer.took()).toList();
				if (!answers.isEmpty() && refused.size() == answers.size()) {
					return VirtualAnswers.answer(call, allRefused(id, refused), told);
				}
				refused.forEach(answer -> told.add(warning(answer.refusal())));
				return VirtualAnswers.answer(call,
						VirtualAnswers.result(id, JsonRpcParser.mapper().createObjectNode()), told);
			});
	}

	/** The error for a request no member took: theirs when they all gave the same, else -32603 naming each. */
	private static ObjectNode allRefused(JsonNode id, List<Answered> refused) {
		List<JsonNode> errors = refused.stream()
			.map(answer -> answer.response() == null ? null : answer.response().get("error"))
			.toList();
		if (!errors.contains(null) && errors.stream().distinct().count() == 1) {
			ObjectNode response = JsonRpcParser.mapper().createObjectNode();
			response.put("jsonrpc", "2.0");
			response.set("id", id);
			response.set("error", errors.get(0).deepCopy());
			return response;
		}
		String members = String.join(", ", refused.stream().map(Answered::member).toList());
		String why = String.join(" ", refused.stream().map(Answered::refusal).toList());
		return JsonRpcErrors.error(id, JsonRpcErrorCodes.INTERNAL_ERROR, "No member took the request. " + why,
				Map.of("reason", "no_member_took_it", "members", members));
	}

	/** A {@code notifications/message} at level {@code warning}. */
	static ObjectNode warning(String text) {
		ObjectNode warning = JsonRpcParser.mapper().createObjectNode();
		warning.put("jsonrpc", "2.0");
		warning.put("method", "notifications/message");
		ObjectNode params = warning.putObject("params");
		params.put("level", "warning");
		params.put("logger", "mcp-relay");
		params.put("data", text);
		return warning;
	}

	/** 202, as a server acknowledges a notification or a response. */
	static Mono<Void> accepted(VirtualCall call) {
		return Mono.defer(() -> {
			RelayResponse response = call.exchange().response();
			response.status(HttpStatus.ACCEPTED);
			call.exchange().record().forwarded(HttpStatus.ACCEPTED.value());
			if (!call.stateless()) {
				response.headers().set("Mcp-Session-Id", call.session().id());
			}
			return response.complete();
		});
	}

}
