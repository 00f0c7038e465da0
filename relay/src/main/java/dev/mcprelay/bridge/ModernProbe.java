package dev.mcprelay.bridge;

import java.util.List;

import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.McpMeta;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * The relay's own {@code server/discover}, asked of a server of unknown versions before a 2026-07-28 client's refused
 * request makes the relay bridge every 2026 client to it (direction 2, {@link ServerEraChecks#sessionEra}): whether the
 * server speaks 2026-07-28 is decided by a request the relay shapes alone, never by the refused one, whose media type,
 * size, headers or versions its client chose (review 46c, finding 1: a {@code Content-Type: text/plain} made a server
 * of both generations answer 415, and the relay took it for a session-era server's refusal). Built by
 * {@link OwnRequests}: the server's configured URL and credentials, the 2026-07-28 headers and a body of the relay's;
 * no header of the client's, which could route it to another server behind a gateway (review 46i, F1). One exchange
 * per {@link ServerVersions#PROBE_INTERVAL} at most while the server answers it (sooner after
 * {@link Verdict#UNANSWERED}), never two at once, its verdict shared by every ask ({@link SharedVerdict}: review 46j,
 * N3), and bounded by {@link #answerBound}.
 */
final class ModernProbe {

	private static final String ID = "mcp-relay-probe";

	private final UpstreamTransport server;

	private final OwnRequests own;

	private final String serverId;

	private final long maxBytes;

	/** How long the exchange waits for the server's answer. */
	private final java.time.Duration answerBound;

	/** The one exchange per interval, shared by every ask. */
	private final SharedVerdict<Asked, Verdict> shared;

	/**
	 * A probe with no credentials of the server's ({@link ServerCredentials#NONE}) that waits at most
	 * {@link SessionEraProbe#LATE_ANSWER} for the server's answer.
	 */
	ModernProbe(UpstreamTransport server, String serverId, long maxBytes) {
		this(server, new OwnRequests(ServerCredentials.NONE, serverId), serverId, maxBytes,
				SessionEraProbe.LATE_ANSWER, System::nanoTime);
	}

	/**
	 * @param answerBound how long the exchange waits for the server's answer (its {@code timeouts.non-streaming}, the
	 * client's deadline: a client waits for the verdict at most half of it, {@link SharedVerdict#ask})
	 */
	ModernProbe(UpstreamTransport server, OwnRequests own, String serverId, long maxBytes,
			java.time.Duration answerBound, java.util.function.LongSupplier nanoClock) {
		this.server = server;
		this.own = own;
		this.serverId = serverId;
		this.maxBytes = maxBytes;
		this.answerBound = answerBound;
		this.shared = new SharedVerdict<>(this::exchange, Verdict.UNKNOWN, verdict -> verdict != Verdict.UNANSWERED,
				answerBound, nanoClock);
	}

	/**
	 * What an exchange is made from: the server's URL (of the request of the caller that started it, which is not kept:
	 * review 46k, K4), and what learns.
	 */
	private record Asked(java.net.URI uri, ServerVersions versions) {
	}

	/** What the server answered the relay's {@code server/discover}. */
	enum Verdict {

		/**
		 * It answered: it speaks 2026-07-28 (the new generation's versions it names are added to what is known,
		 * {@link ServerVersions#learnNewGeneration}: the answer proves nothing of the session era).
		 */
		SPEAKS_2026,

		/** It refused it as a session-era server does ({@link Refusals#bySessionEraServer}). */
		SESSION_ERA,

		/** Neither (its credentials refused, another refusal): nothing is learnt. */
		UNKNOWN,

		/**
		 * No word of the server's (the exchange failed, no answer within {@link #answerBound}, an answer that is a
		 * passing state or a 2xx/3xx with no JSON-RPC message, {@link OwnRequests#serversWord}): nothing is learnt,
		 * and the next ask soon asks again ({@link SharedVerdict#RETRY}).
		 */
		UNANSWERED

	}

	/**
	 * Asks the server {@code request} (a client's) is for whether it speaks 2026-07-28, with none of the request's
	 * headers ({@link OwnRequests}); {@code versions} learns what its answer names; while the last exchange is in
	 * flight or its verdict kept ({@link SharedVerdict}), its verdict. The client
	 * whose request was sent at {@code sentNanos} ({@link System#nanoTime}) waits for it until half its deadline has
	 * passed since ({@link SharedVerdict#ask}), then goes on with {@link Verdict#UNKNOWN} while the exchange goes on
	 * (review 46k, K1). Never fails: an exchange that fails (no credentials to be had among the causes) or finds no
	 * answer within {@link #answerBound} is {@link Verdict#UNANSWERED}.
	 */
	Mono<Verdict> ask(UpstreamRequest request, ServerVersions versions, long sentNanos) {
		return shared.ask(new Asked(request.uri(), versions), sentNanos);
	}

	private Mono<Verdict> exchange(Asked asked) {
		ServerVersions versions = asked.versions();
		ObjectNode discover = McpMeta.relaysOwnEnvelope(JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", ID).put("method", "server/discover"), ProtocolVersions.PER_REQUEST, "probe");
		java.util.concurrent.atomic.AtomicReference<Verdict> verdict = new java.util.concurrent.atomic.AtomicReference<>(
				Verdict.UNANSWERED);
		return own.perRequest(asked.uri(), discover)
			.flatMap(probe -> server.send(probe, response -> {
				verdict.set(OwnRequests.serversWord(response.statusCode(), null) ? Verdict.UNKNOWN
						: Verdict.UNANSWERED);
				return verdictOf(response, versions).doOnNext(verdict::set).then();
			}))
			.timeout(answerBound)
			.onErrorResume(failed -> Mono.empty())
			.then(Mono.fromSupplier(verdict::get));
	}

	private Mono<Verdict> verdictOf(UpstreamResponse response, ServerVersions versions) {
		own.answered(response.statusCode());
		MediaType type = response.contentType();
		Mono<byte[]> body = type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)
				? BridgeBodies.read(response.body(), maxBytes, serverId)
				: type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)
						? BridgedAnswers.firstAnswer(response, maxBytes) : response.releaseBody().then(Mono.empty());
		return body.map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty()).map(read -> {
			byte[] answer = read.orElse(null);
			ObjectNode message = answer == null ? null : BridgedAnswers.parse(answer);
			if (!OwnRequests.serversWord(response.statusCode(), message)) {
				return Verdict.UNANSWERED;
			}
			JsonNode result = message == null ? null : message.get("result");
			if (response.statusCode().is2xxSuccessful() && result != null && result.isObject()) {
				List<String> named = JsonTexts.of(result.path("supportedVersions"));
				versions.learnNewGeneration(named.isEmpty() ? List.of(ProtocolVersions.PER_REQUEST) : named);
				return Verdict.SPEAKS_2026;
			}
			return Refusals.bySessionEraServer(response.statusCode(), answer) ? Verdict.SESSION_ERA : Verdict.UNKNOWN;
		});
	}

}
