package dev.mcprelay.virtual;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * Opens a virtual session's session with one member: sends it the client's {@code initialize} request (through the
 * member's relay, so its interceptors and limits apply) and keeps the session id and protocol version it answers with,
 * within the member's {@code non-streaming} bound. A member that is down, slow, or refuses yields
 * {@link MemberUnavailable} with what went wrong (never a secret: the member relay's own error message).
 *
 * <p>When {@code notifications/initialized} reaches the member decides when its server-to-client stream is expected
 * ({@code SessionOrder}): the members joined by the client's {@code initialize} hear it when the client sends its own
 * ({@link #initialize}; the client opens its GET stream right after); a member joined later, after the client's, hears
 * it at once ({@link #join}), and then the level the client last asked for with {@code logging/setLevel}, if any.
 * The lists a member offers are noted as it answers ({@link MemberLists}).
 */
@Component
class MemberJoin {

	private static final Logger log = LoggerFactory.getLogger(MemberJoin.class);

	private static final byte[] INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		.getBytes(java.nio.charset.StandardCharsets.UTF_8);

	private final MemberCalls calls;

	private final UpstreamRegistry upstreams;

	private final MemberLists lists;

	private final VirtualSessionEnds ends;

	MemberJoin(MemberCalls calls, UpstreamRegistry upstreams, MemberLists lists, VirtualSessionEnds ends) {
		this.ends = ends;
		this.calls = calls;
		this.upstreams = upstreams;
		this.lists = lists;
	}

	/** What a member answered {@code initialize} with. */
	record Joined(String member, MemberSession session, ObjectNode result) {
	}

	/**
	 * Joins {@code member} for a session whose client has already said {@code notifications/initialized}: the
	 * handshake of {@link #initialize}, then the notification; fails with {@link MemberUnavailable}.
	 */
	Mono<Joined> join(MemberOrigin origin, String member, ObjectNode initialize, String loggingLevel) {
		return handshake(origin, member, initialize, true).flatMap(joined -> loggingLevel == null ? Mono.just(joined)
				: calls.send(origin, member, HttpMethod.POST, joined.session(), null, setLevel(loggingLevel), () -> {
				})
					.flatMap(MemberAnswer::discard)
					// the member's own choice whether to take it; it is joined either way
					.onErrorResume(error -> Mono.empty())
					.thenReturn(joined));
	}

	/** The client's {@code logging/setLevel}, replayed to a member that joins after it, under an id of the relay's. */
	private static byte[] setLevel(String level) {
		ObjectNode request = JsonRpcParser.mapper().createObjectNode();
		request.put("jsonrpc", "2.0");
		request.put("id", "mcp-relay-logging-level");
		request.put("method", "logging/setLevel");
		request.putObject("params").put("level", level);
		return JsonRpcErrors.toBytes(request);
	}

	/**
	 * Sends {@code member} the client's {@code initialize} request {@code initialize} and keeps what it answers; the
	 * client's own {@code notifications/initialized} follows later. Fails with {@link MemberUnavailable}.
	 */
	Mono<Joined> initialize(VirtualCall call, String member, ObjectNode initialize) {
		return handshake(MemberOrigin.of(call, member, ends.endedFor(call)), member, initialize, false);
	}

	private Mono<Joined> handshake(MemberOrigin origin, String member, ObjectNode initialize, boolean initialized) {
		Upstream upstream = origin.configuration() == null ? null : upstreams.in(origin.configuration()).find(member);
		if (upstream == null) {
			return Mono.error(new MemberUnavailable(member, "is no longer configured"));
		}
		Duration bound = upstream.nonStreamingTimeout();
		JsonNode id = initialize.get("id");
		byte[] body = JsonRpcErrors.toBytes(initialize);
		return calls.send(origin, member, HttpMethod.POST, MemberSession.NONE, null, body, () -> {
		})
			.flatMap(answer -> {
				String sessionId = answer.headers().getFirst("Mcp-Session-Id");
				boolean ok = answer.status().is2xxSuccessful();
				return MemberMessages.all(answer).flatMap(messages -> {
					ObjectNode response = MemberMessages.responseTo(messages, id);
					if (!ok || response == null || !(response.get("result") instanceof ObjectNode result)) {
						return Mono.error(new MemberUnavailable(member, refusal(answer.status().value(), response)));
					}
					String version = result.path("protocolVersion").asText(null);
					lists.joined(member, result);
					return Mono.just(new Joined(member, new MemberSession(sessionId, version), result));
				});
			})
			.flatMap(joined -> !initialized ? Mono.just(joined) : calls
				.send(origin, member, HttpMethod.POST, joined.session(), null, INITIALIZED, () -> {
				})
				.flatMap(MemberAnswer::discard)
				.thenReturn(joined))
			.timeout(bound, Mono.error(() -> new MemberUnavailable(member, "did not answer initialize within " + bound)))
			.onErrorMap(error -> !(error instanceof MemberUnavailable), error -> {
				log.debug("Member '{}' of virtual server '{}' could not be joined", member,
						origin.access().virtualServer(), error);
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
