package dev.mcprelay.virtual;

import java.time.Duration;

import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * Asks one member something the virtual server answers from (a page of a list, a level to log at): joins the member
 * first if the session has not ({@link MemberJoin}, kept in the session), sends the request through the member's
 * relay and reads its response, within the member's {@code non-streaming} bound. A member that cannot answer, or
 * answers with an HTTP error, fails with {@link MemberUnavailable}; a JSON-RPC error is a response like any other.
 */
@Component
class MemberRequests {

	private final MemberCalls calls;

	private final MemberJoin join;

	private final VirtualSessions sessions;

	private final UpstreamRegistry upstreams;

	MemberRequests(MemberCalls calls, MemberJoin join, VirtualSessions sessions, UpstreamRegistry upstreams) {
		this.calls = calls;
		this.join = join;
		this.sessions = sessions;
		this.upstreams = upstreams;
	}

	/** The session with {@code member}: the one the session holds, or a new one, joined now and kept. */
	Mono<MemberSession> sessionWith(VirtualCall call, String member) {
		if (call.joined(member) || call.stateless()) {
			return Mono.just(call.memberSession(member));
		}
		return join.join(call, member, call.session().initialize())
			.flatMap(joined -> sessions.join(call.server().id(), call.session().id(), member, joined.session())
				.thenReturn(joined.session()));
	}

	/** {@code member}'s response to {@code request}. */
	Mono<ObjectNode> request(VirtualCall call, String member, ObjectNode request) {
		Duration bound = upstreams.find(member).nonStreamingTimeout();
		return sessionWith(call, member)
			.flatMap(session -> calls.send(call.exchange(), call.access(), member, HttpMethod.POST, session, null,
					JsonRpcErrors.toBytes(request)))
			.flatMap(answer -> {
				int status = answer.status().value();
				return MemberMessages.all(answer).flatMap(messages -> {
					ObjectNode response = MemberMessages.responseTo(messages, request.get("id"));
					if (response == null) {
						return Mono.error(new MemberUnavailable(member, "answered " + request.path("method").asText()
								+ " with HTTP " + status + " and no response"));
					}
					return Mono.just(response);
				});
			})
			.timeout(bound, Mono.error(() -> new MemberUnavailable(member,
					"did not answer " + request.path("method").asText() + " within " + bound)))
			.onErrorMap(error -> !(error instanceof MemberUnavailable)
					&& !(error instanceof dev.mcprelay.proxy.RelayFailure),
					error -> new MemberUnavailable(member, "could not be reached"));
	}

}
