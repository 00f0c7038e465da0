package dev.mcprelay.bridge;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.session.SessionIds;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The resources one bridged {@code subscriptions/listen} subscribes to at a 2025 server ({@link SessionEraListen}):
 * {@code resources/subscribe} of each URI in the listen's upstream session, and, when the listen ends,
 * {@code resources/unsubscribe} of those whose subscribe was sent in the session the listen ended in (written to the
 * server, and not refused with an error status: a subscribe the server may have taken, answered or not), and of no
 * other. A listen asks at most {@value #MAX_URIS} URIs (more is refused before anything is sent); at most
 * {@value #CONCURRENCY} of its subscribes, and as many unsubscribes, are in flight at once. The subscribes are
 * cancelled when the listen ends (the client left: those not sent yet never are); the unsubscribes then go after the
 * client has gone, bounded by {@code timeout} for all of them (the server's {@code timeouts.non-streaming}): those not
 * answered by then are dropped. A failure of either is ignored.
 */
final class ResourceSubscriptions {

	/** The most URIs one listen may subscribe to ({@code resourceSubscriptions}). */
	static final int MAX_URIS = 100;

	/** The most subscribes, or unsubscribes, of one listen in flight at once. */
	static final int CONCURRENCY = 4;

	private final UpstreamTransport server;

	private final UpstreamRequest request;

	private final List<String> uris;

	private final Duration timeout;

	/** The URIs whose subscribe was sent in {@link #session}, and not refused. */
	private final Set<String> subscribed = ConcurrentHashMap.newKeySet();

	private volatile UpstreamSession session;

	/**
	 * @param request the client's listen, as relayed (the headers the relay's own requests carry)
	 * @param uris the URIs to subscribe to, at most {@value #MAX_URIS}
	 * @param timeout how long the unsubscribes may take, all told: the server's {@code timeouts.non-streaming}
	 */
	ResourceSubscriptions(UpstreamTransport server, UpstreamRequest request, List<String> uris, Duration timeout) {
		this.server = server;
		this.request = request;
		this.uris = uris;
		this.timeout = timeout;
	}

	/**
	 * Subscribes to every URI in {@code in}, which replaces the session subscribed in before (the server forgot that
	 * one: nothing is unsubscribed there); completes when all were answered, never fails.
	 */
	Mono<Void> subscribe(UpstreamSession in) {
		return Mono.defer(() -> {
			session = in;
			subscribed.clear();
			return Flux.fromIterable(uris)
				.flatMap(uri -> send(in, "resources/subscribe", uri, () -> {
					if (session == in) {
						subscribed.add(uri);
					}
				}).filter(accepted -> !accepted).doOnNext(refused -> subscribed.remove(uri)), CONCURRENCY)
				.then();
		});
	}

	/**
	 * Unsubscribes what was subscribed (none when {@code keep}: a listen refused 409, whose session's resources are
	 * another listen's too), at once and in the background, bounded in concurrency and time; returns at once.
	 */
	void release(boolean keep) {
		UpstreamSession in = session;
		List<String> taken = List.copyOf(subscribed);
		subscribed.clear();
		if (keep || in == null || taken.isEmpty()) {
			return;
		}
		Flux.fromIterable(taken)
			.flatMap(uri -> send(in, "resources/unsubscribe", uri, null), CONCURRENCY)
			.take(timeout)
			.subscribe();
	}

	/**
	 * {@code method} of {@code uri} in {@code in} ({@code written}, when not null, runs once it is written): whether the
	 * server answered it with a 2xx (an error or a failure: false); its answer released.
	 */
	private Mono<Boolean> send(UpstreamSession in, String method, String uri, Runnable written) {
		ObjectNode message = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0")
			.put("id", "mcp-relay-" + method.replace('/', '-') + "-" + SessionIds.mint())
			.put("method", method);
		message.putObject("params").put("uri", uri);
		java.util.concurrent.atomic.AtomicBoolean accepted = new java.util.concurrent.atomic.AtomicBoolean();
		return server.send(SessionEraRequests.inSession(request, message, in, written), response -> {
			accepted.set(response.statusCode().is2xxSuccessful());
			return response.releaseBody();
		}).then(Mono.fromSupplier(accepted::get)).onErrorReturn(false);
	}

}
