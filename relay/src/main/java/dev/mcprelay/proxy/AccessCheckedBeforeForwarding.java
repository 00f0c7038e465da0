package dev.mcprelay.proxy;

import dev.mcprelay.http.RelayExchange;
import reactor.core.publisher.Mono;

/**
 * The one check between a POST's admission and its forwarding: the front door admits a request on its headers, and
 * its body may complete long after (a client may send it a byte at a time, each silence within
 * {@code request-read-timeout}). When a reload withdrew the caller's access meanwhile (its API key removed, a token
 * the new JWT settings refuse, a virtual server member its key no longer names), the request has done nothing yet,
 * and is refused with {@link RelayFailures#accessWithdrawn} (403, reason {@code access_withdrawn}, counted with the
 * refused requests) instead of running on the settings the reload replaced
 * ({@link RelayExchange#accessWithdrawnNow()}).
 *
 * <p>Runs once the body is read and parsed, on the thread that completed it; the check never blocks (an API key in
 * memory, a token against keys fetched without blocking). Both readers of a client's body use it: {@link McpRelay}
 * (pass-through, tool search, bridged servers) and the virtual server's relay.
 */
public final class AccessCheckedBeforeForwarding {

	private AccessCheckedBeforeForwarding() {
	}

	/**
	 * {@code read} once {@code exchange}'s caller is found to still hold the access the front door granted; else an
	 * error, {@link RelayFailures#accessWithdrawn} for {@code server}.
	 */
	public static <T> Mono<T> stillGranted(RelayExchange exchange, String server, T read) {
		return exchange.accessWithdrawnNow()
			.flatMap(withdrawn -> withdrawn ? Mono.<T>error(RelayFailures.accessWithdrawn(server)) : Mono.just(read));
	}

}
