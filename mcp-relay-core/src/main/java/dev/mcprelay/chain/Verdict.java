package dev.mcprelay.chain;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.RejectError;
import reactor.core.publisher.Mono;

/**
 * What a whole chain decided about one message, and which interceptor decided it.
 *
 * @param kind what happens to the message
 * @param result the result to send, for {@link Kind#RESPOND} and {@link Kind#REPLACE_ERROR}
 * @param error the error to send, for {@link Kind#REJECT}
 * @param interceptor the {@code name()} of the interceptor that stopped the chain; {@code null} when all proceeded
 * @param notifications for {@link Kind#RESPOND}, the notifications to send before the result
 * @param changedBy for {@link Kind#PROCEED}, the {@code name()} of the first interceptor that changed the message (it
 * was unchanged before that interceptor ran); {@code null} when none did
 */
public record Verdict(Kind kind, JsonNode result, RejectError error, String interceptor,
		List<ObjectNode> notifications, String changedBy) {

	public Verdict(Kind kind, JsonNode result, RejectError error, String interceptor,
			List<ObjectNode> notifications) {
		this(kind, result, error, interceptor, notifications, null);
	}

	public Verdict(Kind kind, JsonNode result, RejectError error, String interceptor) {
		this(kind, result, error, interceptor, List.of(), null);
	}

	/** The fate of a message after a chain. */
	public enum Kind {
		/** Every interceptor proceeded: the message goes on, changed or not. */
		PROCEED,
		/** A request is answered with {@link #result()}; nothing goes upstream. */
		RESPOND,
		/** An upstream error or failure is answered with {@link #result()}. */
		REPLACE_ERROR,
		/** A server notification goes no further; nobody is told. */
		DROP,
		/** The message is refused with {@link #error()}. */
		REJECT
	}

	/** Every interceptor proceeded. */
	public static final Verdict PROCEED = new Verdict(Kind.PROCEED, null, null, null);

	/** {@link #PROCEED}, as a constant {@code Mono}. */
	public static final Mono<Verdict> PROCEED_MONO = Mono.just(PROCEED);

	/** The message is refused with {@code error} by the interceptor named {@code interceptor}. */
	public static Verdict rejected(RejectError error, String interceptor) {
		return new Verdict(Kind.REJECT, null, error, interceptor);
	}

	/** Every interceptor proceeded, and the one named {@code interceptor} was the first to change the message. */
	public static Verdict changedBy(String interceptor) {
		return new Verdict(Kind.PROCEED, null, null, null, List.of(), interceptor);
	}

	public boolean proceeds() {
		return kind == Kind.PROCEED;
	}

}
