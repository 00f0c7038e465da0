package dev.mcprelay.bridge;

import java.util.List;

import dev.mcprelay.transport.UpstreamRequest;
import reactor.core.publisher.Mono;

/**
 * What the relay's own requests ({@link ModernProbe}, {@link SessionEraProbe}: built from the server's configuration,
 * {@link OwnRequests}) teach of a server for direction 2 of the bridge (a 2026-07-28 client, a server of the session
 * era), and nothing else: an exchange that carries a client's headers (its upstream session's {@code initialize}, a
 * request in that session) went where those headers sent it, and its answer never teaches for every caller (review
 * 46j, N1: behind a gateway that routes by {@code X-Tenant}, one 2026 client's two requests made the relay learn "2026
 * only" and denied every other caller for ten minutes). Such an answer, when it looks like the other generation's, at
 * most makes the relay ask its own requests, each at most once per {@link ServerVersions#PROBE_INTERVAL}
 * ({@link SharedVerdict}). Never fails; what is learnt is in {@link ServerVersions}.
 */
class ServerEraChecks {

	/** Checks that ask nothing and learn nothing: for tests of what does not depend on them. */
	static final ServerEraChecks NONE = new ServerEraChecks(null, null, null) {

		@Override
		Mono<Void> sessionEra(UpstreamRequest relayed, long sentNanos) {
			return Mono.empty();
		}

		@Override
		Mono<Void> recheck(UpstreamRequest relayed) {
			return Mono.empty();
		}

	};

	private final ModernProbe modern;

	private final SessionEraProbe sessionEra;

	private final ServerVersions versions;

	ServerEraChecks(ModernProbe modern, SessionEraProbe sessionEra, ServerVersions versions) {
		this.modern = modern;
		this.sessionEra = sessionEra;
		this.versions = versions;
	}

	/**
	 * Whether the server speaks only the session era, as a 2026 client's refused request suggests: the relay's own
	 * {@code server/discover} first (a server that answers it speaks 2026-07-28: a server of both generations would
	 * answer an {@code initialize} too, and be taken for one of the session era); only when it is refused as a
	 * session-era server refuses it, the relay's own {@code initialize}, whose answered version is learnt. The client,
	 * whose request was sent at {@code sentNanos}, waits for both together until half its deadline has passed since
	 * ({@link SharedVerdict#ask}), then goes on as without them (review 46k, K1: it waited its whole deadline for a
	 * {@code server/discover} that hung, and got a 504 though the server had answered its request at once).
	 */
	Mono<Void> sessionEra(UpstreamRequest relayed, long sentNanos) {
		return modern.ask(relayed, versions, sentNanos)
			.flatMap(verdict -> verdict != ModernProbe.Verdict.SESSION_ERA ? Mono.<Void>empty()
					: sessionEra.answer(relayed, sentNanos).doOnNext(answer -> {
						if (answer.verdict() == SessionEraProbe.Verdict.SPEAKS_SESSION_ERA && answer.version() != null) {
							versions.learn(List.of(answer.version()));
						}
					}).then());
	}

	/**
	 * An exchange of a 2026 client's in the session era (the {@code initialize} of its upstream session, a request in
	 * it) was refused naming versions of the other generation: the server may have been redeployed as a 2026 one, or
	 * a gateway sent the client's request elsewhere. The relay's own {@code initialize} decides: its refusal naming
	 * versions teaches them ({@link SessionEraProbe}); its answer teaches nothing new. The client waits for it half its
	 * deadline from now.
	 */
	Mono<Void> recheck(UpstreamRequest relayed) {
		return sessionEra.ask(relayed, System.nanoTime()).then();
	}

}
