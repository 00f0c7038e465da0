package dev.mcprelay.virtual;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * Opens a virtual session's session with one member: sends it the client's {@code initialize} request (through the
 * member's relay, so its interceptors and limits apply), keeps the session id and protocol version it answers with,
 * and tells it {@code notifications/initialized}, all within the member's {@code non-streaming} bound. A member that
 * is down, slow, or refuses yields {@link MemberUnavailable} with what went wrong (never a secret: the member relay's
 * own error message).
 */
@Component
class MemberJoin {

	private static final Logger log = LoggerFactory.getLogger(MemberJoin.class);

	private static final byte[] INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		.getBytes(java.nio.charset.StandardCharsets.UTF_8);

	private final MemberCalls calls;

	private final UpstreamRegistry upstreams;

	MemberJoin(MemberCalls calls, UpstreamRegistry upstreams) {
		this.calls = calls;
		this.upstreams = upstreams;
	}

	/** What a member answered {@code initialize} with. */
	record Joined(String member, MemberSession session, ObjectNode result) {
	}

	/**
	 * Joins {@code member} with the client's {@code initialize} request {@code initialize}; fails with
	 * {@link MemberUnavailable}.
	 */
	Mono<Joined> join(VirtualCall call, String member, ObjectNode initialize) {
		Upstream upstream = upstreams.find(member);
		Duration bound = upstream.nonStreamingTimeout();
		JsonNode id = initialize.get("id");
		byte[] body = JsonRpcErrors.toBytes(initialize);
		return calls.send(call.exchange(), call.access(), member, HttpMethod.POST, MemberSession.NONE, null, body)
			.flatMap(answer -> {
				String sessionId = answer.headers().getFirst("Mcp-Session-Id");
				boolean ok = answer.status().is2xxSuccessful();
				return MemberMessages.all(answer).flatMap(messages -> {
					ObjectNode response = MemberMessages.responseTo(messages, id);
					if (!ok || response == null || !(response.get("result") instanceof ObjectNode result)) {
						return Mono.error(new MemberUnavailable(member, refusal(answer.status().value(), response)));
					}
					String version = result.path("protocolVersion").asText(null);
					return Mono.just(new Joined(member, new MemberSession(sessionId, version), result));
				});
			})
			.flatMap(joined -> calls
				.send(call.exchange(), call.access(), member, HttpMethod.POST, joined.session(), null, INITIALIZED)
				.flatMap(MemberAnswer::discard)
				.thenReturn(joined))
			.timeout(bound, Mono.error(() -> new MemberUnavailable(member, "did not answer initialize within " + bound)))
			.onErrorMap(error -> !(error instanceof MemberUnavailable), error -> {
				log.debug("Member '{}' of virtual server '{}' could not be joined", member, call.server().id(), error);
				return new MemberUnavailable(member, "could not be reached");
			});
	}

	private static String refusal(int status, ObjectNode response) {
		if (response != null && response.get("error") instanceof ObjectNode error) {
			return "refused initialize: " + error.path("message").asText("an error");
		}
		return "answered initialize with HTTP " + status + " and no result";
	}

}
