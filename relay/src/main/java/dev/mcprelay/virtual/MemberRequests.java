package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.List;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * Sends a message of a virtual session to one member, in the session's session with it:
 * <ul>
 * <li>a member whose server a reload removed since the request's snapshot (its {@link Upstream#isRemoved lifetime}
 * ended: a server of a virtual server with {@code members: ["*"]}) is unavailable, and gets nothing;</li>
 * <li>a member the session has not joined yet is joined first ({@link MemberJoins}, one join at a time), unless a
 * reload withdrew it from the caller since the request's admission: the message then goes unjoined, for the member's
 * exchange to refuse ({@code access_withdrawn});</li>
 * <li>the message goes once the member's stream here is open ({@link MergedStreams#opened}), so that a request the
 * member sends the client meanwhile has a stream to go out on;</li>
 * <li>a member that no longer knows the session ({@link MemberSessionLost}: 404, or a 400 about the session) is joined
 * again and the message sent once more, in the new session; a member that loses that one too is unavailable.</li>
 * </ul>
 * {@link #request} reads the member's response to a request the virtual server answers from (a page of a list, a
 * level to log at), within the member's {@code non-streaming} bound: a member that cannot answer, or answers with an
 * HTTP error, fails with {@link MemberUnavailable}; a JSON-RPC error is a response like any other.
 */
@Component
class MemberRequests {

	private final MemberCalls calls;

	private final MemberJoins joins;

	private final UpstreamRegistry upstreams;

	private final MergedStreams streams;

	private final UntoldNotices untold;

	MemberRequests(MemberCalls calls, MemberJoins joins, UpstreamRegistry upstreams, MergedStreams streams,
			UntoldNotices untold) {
		this.untold = untold;
		this.calls = calls;
		this.joins = joins;
		this.upstreams = upstreams;
		this.streams = streams;
	}

	/**
	 * What a member answered, and what to tell the client first (a member joined again: {@link MemberJoins}).
	 *
	 * @param answer the member's answer; {@code null} when it was not asked again (see {@link #post})
	 * @param withoutStream completes if the member is found to have had no stream when the message reached it
	 * ({@link MergedStreams#opened}); never, else
	 */
	record Sent(MemberAnswer answer, List<ObjectNode> notices, Mono<Void> withoutStream) {
	}

	/** A member's response, and what to tell the client first. */
	record Reply(ObjectNode response, List<ObjectNode> notices) {
	}

	/** The session with a member, once its stream is open, and what says that the message went without it. */
	private record Ready(MemberJoins.Joined joined, Mono<Void> withoutStream) {
	}

	/**
	 * Sends {@code message} to {@code member} in the call's session (POST) and hands on its answer.
	 *
	 * @param again whether to send the message again when the member had lost its session (not for an answer to a
	 * request of the member's, which its new session never sent: the answer is {@code null} then)
	 */
	Mono<Sent> post(VirtualCall call, String member, byte[] message, boolean again) {
		return post(call, member, MemberMessage.of(message), again, false);
	}

	/**
	 * Sends the client's request {@code message} to {@code member} (POST) and hands on its answer; fails with
	 * {@link MemberHadNoStream} when the member is found, before it answered, to have had no stream when the request
	 * reached it (the member's exchange is cancelled). A message that carries its tree ({@link MemberMessage#routed})
	 * hands it to the member's relay the first time it is sent.
	 */
	Mono<Sent> call(VirtualCall call, String member, MemberMessage message) {
		return post(call, member, message, true, true);
	}

	/**
	 * Keeps {@code notices}, which the message that joined {@code member} again could not carry (its answer has no
	 * body: a notification's 202), for the answer of the next request to the member ({@link UntoldNotices}).
	 */
	void untold(VirtualCall call, String member, List<ObjectNode> notices) {
		untold.keep(call, member, notices);
	}

	private Mono<Sent> post(VirtualCall call, String member, MemberMessage message, boolean again,
			boolean endWithoutStream) {
		// what an earlier message to the member could not tell the client comes first
		return post(call, member, message, again, endWithoutStream, new Object())
			.map(sent -> new Sent(sent.answer(), untold.take(call, member, sent.notices()), sent.withoutStream()));
	}

	private Mono<Sent> post(VirtualCall call, String member, MemberMessage message, boolean again,
			boolean endWithoutStream, Object token) {
		Upstream upstream = upstreams.in(call.exchange().configuration()).find(member);
		if (upstream != null && upstream.isRemoved()) {
			// a reload removed the member's server since the request's snapshot: nothing goes to its old address
			return Mono.error(new MemberUnavailable(member, "was removed from the relay's configuration"));
		}
		return ready(call, member, token).flatMap(ready -> send(call, member, ready, message, endWithoutStream)
			.map(answer -> new Sent(answer, ready.joined().noticesFor(token), ready.withoutStream()))
			.onErrorResume(MemberSessionLost.class, lost -> joins
				.join(call.server(), call.session(), MemberOrigin.kept(call), member, lost.lost(), token)
				.flatMap(rejoined -> streams.opened(call, member).flatMap(withoutStream -> {
					Ready rejoinedReady = new Ready(rejoined, withoutStream);
					return !again ? Mono.just(new Sent(null, rejoined.noticesFor(token), withoutStream))
							: send(call, member, rejoinedReady, message, endWithoutStream)
								.map(answer -> new Sent(answer, rejoined.noticesFor(token), withoutStream))
								.onErrorMap(MemberSessionLost.class,
										twice -> new MemberUnavailable(member, "lost its new session at once"));
				}))));
	}

	/** The session with {@code member}: the one the session holds, or a new one, joined now; once its stream is open. */
	Mono<MemberSession> sessionWith(VirtualCall call, String member) {
		return ready(call, member, new Object()).map(ready -> ready.joined().session());
	}

	private Mono<Ready> ready(VirtualCall call, String member, Object token) {
		if (call.stateless()) {
			return Mono.just(new Ready(new MemberJoins.Joined(MemberSession.NONE, List.of(), null), Mono.never()));
		}
		if (call.joined(member)) {
			return streams.opened(call, member)
				.map(withoutStream -> new Ready(new MemberJoins.Joined(call.memberSession(member), List.of(), null),
						withoutStream));
		}
		Mono<Boolean> withdrawn = call.exchange().accessWithdrawnNowFrom(member);
		Mono<Ready> joining = Mono.defer(() -> joins.join(call.server(), call.session(), MemberOrigin.kept(call),
				member, MemberSession.NONE, token)
			.flatMap(joined -> streams.opened(call, member).map(withoutStream -> new Ready(joined, withoutStream))));
		if (withdrawn == RelayExchange.NOT_WITHDRAWN) {
			return joining;
		}
		// a member a reload withdrew from the caller since the admission is not joined for it (no initialize, no
		// stream): the message goes as it is, for the member's exchange to refuse before anything of it reaches the
		// member (403 access_withdrawn), as it refuses one to a member the session joined
		return withdrawn.flatMap(lost -> lost
				? Mono.just(new Ready(new MemberJoins.Joined(MemberSession.NONE, List.of(), null), Mono.never()))
				: joining);
	}

	/**
	 * Sends {@code message} in {@code ready}'s session; with {@code endWithoutStream}, ends it with
	 * {@link MemberHadNoStream} if the member is found to have had no stream before it answered (a request without a
	 * session waits for no stream: it is sent as it is).
	 */
	private Mono<MemberAnswer> send(VirtualCall call, String member, Ready ready, MemberMessage message,
			boolean endWithoutStream) {
		Mono<MemberAnswer> sent = send(call, member, ready.joined().session(), message);
		return !endWithoutStream || call.stateless() ? sent
				: Mono.firstWithSignal(sent, ready.withoutStream().then(Mono.error(() -> new MemberHadNoStream(member))));
	}

	private Mono<MemberAnswer> send(VirtualCall call, String member, MemberSession session, MemberMessage message) {
		return calls.post(call, member, session, message)
			.flatMap(answer -> call.stateless() ? Mono.just(answer) : MemberSessionLost.check(answer, session));
	}

	/** {@code member}'s response to {@code request}, and what to tell the client first. */
	Mono<Reply> request(VirtualCall call, String member, ObjectNode request) {
		Upstream upstream = upstreams.in(call.exchange().configuration()).find(member);
		if (upstream == null) {
			return Mono.error(new MemberUnavailable(member, "is no longer configured"));
		}
		Duration bound = upstream.nonStreamingTimeout();
		return post(call, member, JsonRpcErrors.toBytes(request), true).flatMap(sent -> {
			MemberAnswer answer = sent.answer();
			int status = answer.status().value();
			return MemberMessages.all(answer).flatMap(messages -> {
				ObjectNode response = MemberMessages.responseTo(messages, request.get("id"));
				if (response == null) {
					return Mono.error(new MemberUnavailable(member, "answered " + request.path("method").asText()
							+ " with HTTP " + status + (answer.status().is2xxSuccessful() ? " and no response"
									: " and no JSON-RPC error")));
				}
				return Mono.just(new Reply(response, sent.notices()));
			});
		})
			.timeout(bound, Mono.error(() -> new MemberUnavailable(member,
					"did not answer " + request.path("method").asText() + " within " + bound)))
			.onErrorMap(error -> !(error instanceof MemberUnavailable) && !(error instanceof RelayFailure),
					error -> new MemberUnavailable(member, "could not be reached"));
	}

}
