package dev.mcprelay.bridge;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * Whether a server still speaks the session era, asked with an {@code initialize} of the relay's own
 * ({@link ProtocolVersions#LATEST_SESSION}, the relay's client info, no capabilities, built by {@link OwnRequests}: the
 * server's configured URL and credentials, no header of any client's) when it refused a 2025 client's request as of a
 * version it no longer speaks ({@link RetiredSessionEra}), a 2025 client's {@code initialize} naming versions of
 * the other generation ({@link VersionBridge}), or an exchange of a 2026 client's bridged to it answered as by a
 * server of the other generation ({@link ServerEraChecks}). The refused request is the client's: its headers, its
 * {@code _meta}, even its session id are the client's choice, and a server of both generations routes a request by
 * them (the TypeScript SDK v2 takes a request whose {@code _meta} carries a 2026 envelope to its 2026 path, which
 * refuses a pre-2026 claim with -32022 naming only 2026-07-28), as does a gateway in front of servers of both (by
 * {@code X-Tenant}, say). Only the relay's own {@code initialize} decides, and only its answer teaches the server's
 * versions: its refusal naming them, or the version it answered once the relay's own {@code server/discover} showed
 * that the server speaks no 2026-07-28 ({@link ServerEraChecks#sessionEra}) (review 46f, F1, F3; review 46i, F1;
 * review 46j, N1).
 *
 * <p>The answer is {@link Verdict#RETIRED} when the server refuses that {@code initialize} naming versions
 * ({@code error.data.supported}) of which none is of the session era; a refusal naming versions teaches them
 * ({@link ServerVersions#learn}, within its bound) whichever they are; {@link Verdict#SPEAKS_SESSION_ERA} when it
 * answers it with a result (the session that opened, if the server keeps sessions, is ended at once: a DELETE, built
 * the same way); {@link Verdict#UNANSWERED} when no word of the server's came (no credentials to be had, no answer
 * within {@link #answerBound}, a failure, a 5xx, a 2xx or 3xx with no JSON-RPC message such as a gateway's maintenance
 * page: asked again soon, {@link OwnRequests#serversWord}); {@link Verdict#UNKNOWN} for anything else (a
 * refusal that names nothing). One exchange per {@link ServerVersions#PROBE_INTERVAL} at most while the server
 * answers it (sooner after {@link Verdict#UNANSWERED}), and never two at once ({@link SharedVerdict}): every refusal
 * within it shares the one verdict, so a client that repeats its request costs the server nothing more. Never fails.
 *
 * <p>The exchange is the relay's, not a client's (review 46h, N1): it is started on its own, no client's cancel or
 * deadline ends it, and each client waits for its verdict only as long as it is told ({@link #ask}), then goes on
 * without it ({@link Verdict#UNKNOWN}). An answer that comes after every client stopped waiting still counts: its
 * verdict is the one later refusals share, and the session it opened is ended; the exchange waits for it up to
 * {@link #answerBound} (the longer of the server's {@code timeouts.non-streaming} and {@link #LATE_ANSWER}).
 */
final class SessionEraProbe {

	private final UpstreamTransport server;

	private final OwnRequests own;

	private final String serverId;

	private final ServerVersions versions;

	private final long maxBytes;

	private final Duration timeout;

	/** The least the exchange waits for the server's answer, however short {@code timeouts.non-streaming} is. */
	static final Duration LATE_ANSWER = Duration.ofSeconds(30);

	/** The one exchange per interval, shared by every ask ({@link SharedVerdict}). */
	private final SharedVerdict<URI, Answer> shared;

	/**
	 * @param timeout the server's {@code timeouts.non-streaming}: the exchange waits at least that long, a client at
	 * most half of it
	 */
	SessionEraProbe(UpstreamTransport server, OwnRequests own, String serverId, ServerVersions versions, long maxBytes,
			Duration timeout) {
		this(server, own, serverId, versions, maxBytes, timeout, System::nanoTime);
	}

	SessionEraProbe(UpstreamTransport server, OwnRequests own, String serverId, ServerVersions versions, long maxBytes,
			Duration timeout, LongSupplier nanoClock) {
		this.server = server;
		this.own = own;
		this.serverId = serverId;
		this.versions = versions;
		this.maxBytes = maxBytes;
		this.timeout = timeout;
		this.shared = new SharedVerdict<>(this::exchange, Answer.UNKNOWN,
				answer -> answer.verdict() != Verdict.UNANSWERED, timeout, nanoClock);
	}

	/** What the server answered the relay's {@code initialize}. */
	enum Verdict {

		/** It refused it naming only versions of the new generation: it no longer speaks the session era. */
		RETIRED,

		/** It answered it: it speaks the session era still. */
		SPEAKS_SESSION_ERA,

		/** Neither: nothing is learnt. */
		UNKNOWN,

		/**
		 * No word of the server's (the exchange failed, no credentials to be had, no answer within
		 * {@link #answerBound}, an answer that is a passing state or a 2xx/3xx with no JSON-RPC message,
		 * {@link OwnRequests#serversWord}): nothing is learnt, and the next ask soon asks again
		 * ({@link SharedVerdict#RETRY}: review 46k, K5; review 46l, N4).
		 */
		UNANSWERED

	}

	/**
	 * The verdict on the server, asked of the server {@code relayed} (a client's request) is for, with none of its
	 * headers ({@link OwnRequests}), or, while the last exchange is in flight or its verdict kept
	 * ({@link SharedVerdict}), the one it gives. The client whose request was sent at {@code sentNanos} ({@link System#nanoTime}) waits for it
	 * until half its deadline ({@code timeouts.non-streaming}) has passed since ({@link SharedVerdict#ask}); past that
	 * (at once, if it has: the verdict already known, if any), {@link Verdict#UNKNOWN}, and the exchange goes on without
	 * the caller. Cancelling the result cancels only the caller's wait. Never fails.
	 */
	Mono<Verdict> ask(UpstreamRequest relayed, long sentNanos) {
		return answer(relayed, sentNanos).map(Answer::verdict);
	}

	/**
	 * As {@link #ask}, with the version the server's {@code initialize} answered ({@link Verdict#SPEAKS_SESSION_ERA}),
	 * which the caller may learn when another own request showed that the server speaks no 2026-07-28
	 * ({@link ServerEraChecks}): an {@code initialize} answered proves nothing of a server of both generations.
	 */
	Mono<Answer> answer(UpstreamRequest relayed, long sentNanos) {
		return shared.ask(relayed.uri(), sentNanos);
	}

	/** A verdict, and the version the server answered the {@code initialize} with ({@code null} unless it did). */
	record Answer(Verdict verdict, String version) {

		static final Answer UNKNOWN = new Answer(Verdict.UNKNOWN, null);

		static final Answer UNANSWERED = new Answer(Verdict.UNANSWERED, null);

	}

	/** How long the exchange waits for the server's answer: the longer of {@code timeout} and {@link #LATE_ANSWER}. */
	Duration answerBound() {
		return timeout.compareTo(LATE_ANSWER) > 0 ? timeout : LATE_ANSWER;
	}

	/** The exchange, made from the server's URL alone: nothing of the client's request is kept (review 46k, K4). */
	private Mono<Answer> exchange(URI uri) {
		ObjectNode initialize = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", "mcp-relay-initialize").put("method", "initialize");
		ObjectNode params = initialize.putObject("params").put("protocolVersion", ProtocolVersions.LATEST_SESSION);
		params.putObject("capabilities");
		params.putObject("clientInfo").put("name", "mcp-relay").put("version", "probe");
		return Mono.defer(() -> {
			java.util.concurrent.atomic.AtomicReference<Answer> verdict = new java.util.concurrent.atomic.AtomicReference<>(
					Answer.UNANSWERED);
			return own.sessionEra(uri, initialize)
				.flatMap(request -> server.send(request, response -> {
					boolean passing = OwnRequests.passing(response.statusCode());
					verdict.set(OwnRequests.serversWord(response.statusCode(), null) ? Answer.UNKNOWN
							: Answer.UNANSWERED);
					return passing ? response.releaseBody() : verdictOf(uri, response).doOnNext(verdict::set).then();
				}))
				.timeout(answerBound())
				.onErrorResume(failed -> Mono.empty())
				.then(Mono.fromSupplier(verdict::get));
		});
	}

	private Mono<Answer> verdictOf(URI uri, UpstreamResponse response) {
		own.answered(response.statusCode());
		MediaType type = response.contentType();
		Mono<byte[]> body = type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)
				? BridgeBodies.read(response.body(), maxBytes, serverId)
				: type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)
						? BridgedAnswers.firstAnswer(response, maxBytes) : response.releaseBody().then(Mono.empty());
		return body.flatMap(read -> {
			ObjectNode answer = BridgedAnswers.parse(read);
			if (!OwnRequests.serversWord(response.statusCode(), answer)) {
				return Mono.just(Answer.UNANSWERED);
			}
			JsonNode result = answer == null ? null : answer.get("result");
			if (response.statusCode().is2xxSuccessful() && result != null
					&& result.path("protocolVersion").isTextual()) {
				String sessionId = response.headers().getFirst("Mcp-Session-Id");
				String version = result.path("protocolVersion").asText();
				return ended(uri, sessionId, version)
					.thenReturn(new Answer(Verdict.SPEAKS_SESSION_ERA, version));
			}
			List<String> supported = Refusals.supportedVersions(read);
			if (response.statusCode().is2xxSuccessful() || supported.isEmpty()) {
				return Mono.just(Answer.UNKNOWN);
			}
			versions.learn(supported);
			return Mono.just(supported.stream().allMatch(ProtocolVersions::isPerRequest)
					? new Answer(Verdict.RETIRED, null) : Answer.UNKNOWN);
		});
	}

	/** Ends the session the relay's {@code initialize} opened (a DELETE), if the server keeps sessions. */
	private Mono<Void> ended(URI uri, String sessionId, String version) {
		if (sessionId == null) {
			return Mono.empty();
		}
		return own.end(uri, sessionId, version)
			.flatMap(delete -> server.close(delete, UpstreamResponse::releaseBody))
			.onErrorResume(failed -> Mono.empty());
	}

}
