package dev.mcprelay.bridge;

import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.http.MediaType;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamResponse;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Mono;

/**
 * Whether a server that the relay bridges 2025 clients to, as one that speaks only 2026-07-28, was redeployed as a
 * session-era server ({@link SessionBridge}, when the server refuses a bridged request as such a server does): asked
 * of what the relay knows of its versions, and proved, when they still call for the bridge, by a {@code server/discover}
 * of the relay's own that the server refuses as a session-era server does ({@link Refusals#bySessionEraServer}), which
 * makes the relay forget them ({@link ServerVersions#forget}). That exchange is spent once per
 * {@link ServerVersions#PROBE_INTERVAL} at most, within the bound of revisions ({@link ServerVersions#mayProbe}): a
 * 2026-07-28 server that refuses many requests costs no more.
 */
final class RedeployedServers {

	private static final String DISCOVER_ID = "mcp-relay-discover";

	private final UpstreamTransport server;

	private final String serverId;

	private final ServerVersions versions;

	private final long maxBytes;

	RedeployedServers(UpstreamTransport server, String serverId, ServerVersions versions, long maxBytes) {
		this.server = server;
		this.serverId = serverId;
		this.versions = versions;
		this.maxBytes = maxBytes;
	}

	/**
	 * Whether the server no longer speaks the 2026-07-28 the session is bridged to: what the relay knows of its versions
	 * no longer calls for the bridge, or (once per {@link ServerVersions#PROBE_INTERVAL}, within the bound of revisions)
	 * the server refuses the relay's {@code server/discover} as a session-era server does, which makes the relay forget
	 * what it learnt.
	 */
	Mono<Boolean> noLongerModern(UpstreamRequest request, BridgedClient client) {
		if (!versions.bridges(client.version())) {
			return Mono.just(true);
		}
		if (!versions.mayProbe()) {
			return Mono.just(false);
		}
		AtomicBoolean refused = new AtomicBoolean();
		return server.send(ModernRequests.of(request, discover(), client, null),
				response -> firstAnswerOf(response)
					.doOnNext(body -> refused.set(Refusals.bySessionEraServer(response.statusCode(), body)
							&& !Refusals.ofRequestContent(body, DISCOVER_ID)))
					.switchIfEmpty(Mono.<byte[]>fromRunnable(() -> refused.set(
							Refusals.bySessionEraServer(response.statusCode(), null))))
					.then())
			.onErrorResume(failed -> Mono.empty())
			.then(Mono.fromSupplier(() -> (refused.get() && versions.forget("it refused the relay's server/discover "
					+ "as a session-era server does")) || !versions.bridges(client.version())));
	}

	/** The body of a JSON answer, or the first answer of an event stream; empty for any other (its body released). */
	private Mono<byte[]> firstAnswerOf(UpstreamResponse response) {
		MediaType type = response.contentType();
		if (type != null && MediaType.APPLICATION_JSON.isCompatibleWith(type)) {
			return BridgeBodies.read(response.body(), maxBytes, serverId);
		}
		if (type != null && MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
			return BridgedAnswers.firstAnswer(response, maxBytes);
		}
		return response.releaseBody().then(Mono.empty());
	}

	private static ObjectNode discover() {
		ObjectNode request = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0").put("id", DISCOVER_ID)
			.put("method", "server/discover");
		request.putObject("params");
		return request;
	}

}
