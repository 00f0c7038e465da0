package dev.mcprelay.virtual;

import java.util.Locale;

import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import com.fasterxml.jackson.databind.JsonNode;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A member no longer knows the session the virtual session had with it (it restarted, or expired the session): it
 * answered a message sent in that session with 404 (MCP's "session ended"), or with a 400 whose error speaks of the
 * session, as servers built on the TypeScript SDK's examples answer an id they do not know ("Bad Request: No valid
 * session ID provided"). The member is joined again ({@link MemberJoins}); the client never sees that answer, which
 * carries no JSON-RPC id and which every MCP client takes for the end of its own session.
 */
final class MemberSessionLost extends RuntimeException {

	/** The most of a 400's body read to tell whether it is about the session. */
	private static final int MAX_ERROR_BYTES = 64 * 1024;

	private final String member;

	private final MemberSession lost;

	MemberSessionLost(String member, MemberSession lost) {
		super("Member '" + member + "' no longer knows its session", null, false, false);
		this.member = member;
		this.lost = lost;
	}

	String member() {
		return member;
	}

	MemberSession lost() {
		return lost;
	}

	/**
	 * {@code answer}, unless it says the member no longer knows session {@code sent}: then a
	 * {@link MemberSessionLost} (the answer's body released). A 400 that is about something else is handed on with its
	 * body as read.
	 */
	static Mono<MemberAnswer> check(MemberAnswer answer, MemberSession sent) {
		int status = answer.status().value();
		if (sent.sessionId() == null || (status != 404 && status != 400)) {
			return Mono.just(answer);
		}
		if (status == 404) {
			return answer.discard().then(Mono.error(new MemberSessionLost(answer.member(), sent)));
		}
		return answer.bytes(MAX_ERROR_BYTES).onErrorReturn(new byte[0]).flatMap(body -> aboutTheSession(body)
				? Mono.error(new MemberSessionLost(answer.member(), sent))
				: Mono.just(new MemberAnswer(answer.member(), answer.status(), answer.headers(),
						Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body))),
						answer.cutByRelay(), answer.refusedAsWithdrawn(), answer.written())));
	}

	/**
	 * Whether a 400's body is a JSON-RPC error about the session (its id unknown, missing or invalid); read as every
	 * member body is ({@link MemberMessages#parse}: UTF-8 JSON text only).
	 */
	static boolean aboutTheSession(byte[] body) {
		JsonNode message = MemberMessages.parse(body);
		String text = message == null ? "" : message.path("error").path("message").asText("");
		return text.toLowerCase(Locale.ROOT).contains("session");
	}

}
