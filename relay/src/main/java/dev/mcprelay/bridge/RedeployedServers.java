package dev.mcprelay.bridge;

import dev.mcprelay.transport.UpstreamRequest;
import reactor.core.publisher.Mono;

/**
 * Whether a server that the relay bridges 2025 clients to, as one that speaks only 2026-07-28, was redeployed as a
 * session-era server ({@link SessionBridge}, when the server refuses a bridged request as such a server does): asked
 * of what the relay knows of its versions, and proved, when they still call for the bridge, by the relay's own
 * {@code server/discover} ({@link ModernProbe}: the server's configured URL and credentials, nothing of the client's,
 * review 46i F1) that the server refuses as a session-era server does ({@link Refusals#bySessionEraServer}), which
 * makes the relay forget them ({@link ServerVersions#forget}). That exchange is spent once per
 * {@link ServerVersions#PROBE_INTERVAL} at most, within the bound of revisions ({@link ServerVersions#mayProbe}): a
 * 2026-07-28 server that refuses many requests costs no more.
 */
final class RedeployedServers {

	private final ModernProbe probe;

	private final ServerVersions versions;

	RedeployedServers(ModernProbe probe, ServerVersions versions) {
		this.probe = probe;
		this.versions = versions;
	}

	/**
	 * Whether the server no longer speaks the 2026-07-28 the session is bridged to: what the relay knows of its versions
	 * no longer calls for the bridge, or (once per {@link ServerVersions#PROBE_INTERVAL}, within the bound of revisions)
	 * the server refuses the relay's {@code server/discover} as a session-era server does, which makes the relay forget
	 * what it learnt. The client, whose request was sent at {@code sentNanos} ({@link System#nanoTime}), waits for that
	 * exchange at most half its deadline ({@link SharedVerdict#ask}; review 46k, K1). Never fails.
	 */
	Mono<Boolean> noLongerModern(UpstreamRequest request, BridgedClient client, long sentNanos) {
		if (!versions.bridges(client.version())) {
			return Mono.just(true);
		}
		if (!versions.mayProbe()) {
			return Mono.just(false);
		}
		return probe.ask(request, versions, sentNanos)
			.map(verdict -> (verdict == ModernProbe.Verdict.SESSION_ERA && versions.forget("it refused the relay's "
					+ "server/discover as a session-era server does")) || !versions.bridges(client.version()));
	}

}
