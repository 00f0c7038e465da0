package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.sse.SseEventWriter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code subscriptions/listen} of an MCP 2026-07-28 client (no session): sent to every usable member, and answered as
 * one server would once each member has answered it:
 * <ul>
 * <li>members that opened their stream: one stream for the client, the members' streams merged, with one
 * acknowledgement (the first member's) and one result for the client's request once every member's stream has ended
 * (the first member's result): never two answers to one id; a member that refused comes first as a
 * {@code notifications/message} warning naming it and what it said;</li>
 * <li>no member opened one: the error for the request (the member's own when there is one member, else -32603 naming
 * each and what it said), never an empty stream.</li>
 * </ul>
 * Closing the client's stream cancels every member's.
 */
@Component
class MergedListen {

	private final MemberCalls calls;

	private final AnswerRelay answers;

	private final MemberAvailability availability;

	MergedListen(MemberCalls calls, AnswerRelay answers, MemberAvailability availability) {
		this.calls = calls;
		this.answers = answers;
		this.availability = availability;
	}

	/** A member's answer: its stream, or what it said instead. */
	private record Answered(String member, MemberAnswer stream, ObjectNode error, String refusal) {
	}

	Mono<Void> listen(VirtualCall call, ObjectNode request) {
		byte[] body = JsonRpcErrors.toBytes(request);
		JsonNode id = request.get("id");
		List<String> members = call.usable();
		return Flux.fromIterable(members)
			.flatMapSequential(member -> calls
				.send(call, member, HttpMethod.POST, MemberSession.NONE, null, body)
				.flatMap(answer -> answered(member, answer, id))
				.onErrorResume(error -> Mono.just(new Answered(member, null, null,
						new MemberUnavailable(member, "could not be reached").getMessage()))), Math.max(1, members.size()))
			.collectList()
			.flatMap(all -> {
				List<Answered> refused = all.stream().filter(answer -> answer.stream() == null).toList();
				refused.forEach(answer -> availability.unavailable(call.server().id(),
						new MemberUnavailable(answer.member(), "refused subscriptions/listen")));
				if (refused.size() == all.size()) {
					return VirtualAnswers.answer(call, noStream(id, refused));
				}
				List<ObjectNode> warnings = refused.stream()
					.map(answer -> MemberFanOut.warning("Member '" + answer.member() + "' did not take the "
							+ "subscription: " + answer.refusal()))
					.toList();
				return merge(call, id, warnings, all.stream().map(Answered::stream).filter(Objects::nonNull).toList());
			});
	}

	/** What {@code member} answered: its event stream, or its error (the answer read and released). */
	private static Mono<Answered> answered(String member, MemberAnswer answer, JsonNode id) {
		if (answer.isEventStream() && answer.status().is2xxSuccessful()) {
			return Mono.just(new Answered(member, answer, null, null));
		}
		int status = answer.status().value();
		return MemberMessages.all(answer).map(messages -> {
			ObjectNode response = MemberMessages.responseTo(messages, id);
			JsonNode error = response != null ? response.get("error")
					: messages.isEmpty() ? null : messages.get(0).get("error");
			String said = error instanceof ObjectNode object ? object.path("message").asText("an error")
					: "HTTP " + status;
			return new Answered(member, null, response != null && error instanceof ObjectNode ? response : null,
					"answered with " + said);
		});
	}

	/** The error for a subscription no member took. */
	private static ObjectNode noStream(JsonNode id, List<Answered> refused) {
		if (refused.size() == 1 && refused.get(0).error() != null) {
			ObjectNode response = refused.get(0).error().deepCopy();
			response.set("id", id);
			return response;
		}
		List<String> said = new ArrayList<>();
		refused.forEach(answer -> said.add("'" + answer.member() + "' " + answer.refusal()));
		return JsonRpcErrors.error(id, JsonRpcErrorCodes.INTERNAL_ERROR, "No member took the subscription: "
				+ String.join("; ", said) + ".", Map.of("reason", "no_member_took_it"));
	}

	/**
	 * The members' streams as the client's one, after the warnings: one acknowledgement, before any member's other
	 * events (a member's events that come ahead of every acknowledgement are held until the first one, at most
	 * {@value #HELD_BEFORE_ACKNOWLEDGEMENT}; then handed on), one result.
	 */
	private Mono<Void> merge(VirtualCall call, JsonNode id, List<ObjectNode> warnings, List<MemberAnswer> opened) {
		AtomicBoolean acknowledged = new AtomicBoolean();
		AtomicReference<byte[]> result = new AtomicReference<>();
		List<Flux<ListenEvent>> streams = new ArrayList<>();
		for (MemberAnswer answer : opened) {
			String member = answer.member();
			streams.add(MemberMessages.events(answer).<ListenEvent>handle((event, sink) -> {
				ObjectNode message = event.isMessage() ? MemberMessages.parse(event.dataBytes()) : null;
				if (message != null && !message.has("method") && id.equals(message.get("id"))) {
					result.compareAndSet(null, event.raw());
					return;
				}
				boolean acknowledgement = message != null
						&& "notifications/subscriptions/acknowledged".equals(message.path("method").asText());
				if (acknowledgement && !acknowledged.compareAndSet(false, true)) {
					return;
				}
				sink.next(new ListenEvent(answers.rewrite(call, member, event,
						event.id() == null ? null : MemberIds.eventId(Map.of(member, event.id()))), acknowledgement));
			}).onErrorResume(error -> Flux.empty()));
		}
		Flux<byte[]> told = Flux.fromIterable(warnings)
			.map(warning -> SseEventWriter.message(new String(JsonRpcErrors.toBytes(warning),
					StandardCharsets.UTF_8)));
		RelayResponse response = call.exchange().response();
		call.exchange().record().forwarded(HttpStatus.OK.value());
		response.status(HttpStatus.OK);
		AnswerRelay.eventStreamHeaders(response.headers());
		return answers.writeEvents(response, told.concatWith(acknowledgementFirst(Flux.merge(streams)))
			.concatWith(Mono.fromSupplier(result::get)));
	}

	/** An event of a member's listen stream, as the client gets it, and whether it is its acknowledgement. */
	private record ListenEvent(byte[] bytes, boolean acknowledgement) {
	}

	/** The most events held back until the first acknowledgement; past it they are handed on as they are. */
	static final int HELD_BEFORE_ACKNOWLEDGEMENT = 64;

	/**
	 * {@code merged} with the first acknowledgement ahead of what members sent before it (the members' streams are
	 * merged as they come, and one member's change may come before another's acknowledgement).
	 */
	private static Flux<byte[]> acknowledgementFirst(Flux<ListenEvent> merged) {
		return Flux.defer(() -> {
			List<byte[]> early = new ArrayList<>();
			AtomicBoolean out = new AtomicBoolean();
			return merged.concatMapIterable(event -> {
				if (out.get()) {
					return List.of(event.bytes());
				}
				if (event.acknowledgement() || early.size() >= HELD_BEFORE_ACKNOWLEDGEMENT) {
					out.set(true);
					List<byte[]> now = new ArrayList<>(early.size() + 1);
					now.add(event.bytes());
					now.addAll(early);
					early.clear();
					return now;
				}
				early.add(event.bytes());
				return List.of();
			}).concatWith(Flux.defer(() -> Flux.fromIterable(List.copyOf(early))));
		});
	}

}
