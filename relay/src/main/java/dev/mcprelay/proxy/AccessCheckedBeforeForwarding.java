package dev.mcprelay.proxy;

import java.util.function.Function;

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
	 * {@code then} applied to {@code read} once {@code exchange}'s caller is found to still hold the access the front
	 * door granted; else an error, {@link RelayFailures#accessWithdrawn} for {@code server}. When nothing can have been
	 * withdrawn ({@link RelayExchange#NOT_WITHDRAWN}: mode {@code none}, no reload since the admission), {@code then}
	 * is applied at once, with no operator between: the check costs the common request nothing.
	 */
	public static <T, R> Mono<R> stillGranted(RelayExchange exchange, String server, T read,
			Function<T, Mono<R>> then) {
		Mono<Boolean> withdrawn = exchange.accessWithdrawnNow();
		if (withdrawn == RelayExchange.NOT_WITHDRAWN) {
			return then.apply(read);
		}
		return withdrawn.flatMap(lost -> lost ? Mono.<R>error(RelayFailures.accessWithdrawn(server)) : then.apply(read));
	}

}
