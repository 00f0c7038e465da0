package dev.mcprelay.proxy;

import java.util.function.Function;

import dev.mcprelay.http.RelayExchange;
import reactor.core.publisher.Mono;

/**
 * The one check between a POST's admission and its forwarding: the front door admits a request on its headers, and
 * its body may complete long after (a client may send it a byte at a time, each silence within
 * {@code request-read-timeout}), and a request read whole may then wait its turn behind an earlier request of its
 * session ({@link SessionOrder}) for as long as that one's body trickles. A reload meanwhile may have
 * <ul>
 * <li>removed the server the request goes to (a pass-through server, or the member of a virtual server its call
 * goes to): the request is answered as a request that finds its server gone before the answer is: 404, reason
 * {@code server_removed} ({@link RelayFailures#serverRemoved}), never forwarded to the removed server's address with
 * its headers ({@link Upstream#isRemoved}, by the server's lifetime: a server added again under its id is another);</li>
 * <li>withdrawn the caller's access (its API key removed, a token the new JWT settings refuse, a virtual server
 * member its key no longer names): the request has done nothing yet, and is refused with
 * {@link RelayFailures#accessWithdrawn} (403, reason {@code access_withdrawn}, counted with the refused requests)
 * instead of running on the settings the reload replaced ({@link RelayExchange#accessWithdrawnNow()}).</li>
 * </ul>
 *
 * <p>Asked once the body is read and parsed, on the thread that completed it, by both readers of a client's body:
 * {@link McpRelay} (pass-through, tool search, bridged servers, and a virtual server's member, whose exchange answers
 * for the client's access to that member) and the virtual server's relay ({@link #stillGranted}, the access to the
 * virtual server as a whole); and again when the request's turn in its session comes, right before its bytes go
 * upstream ({@link UpstreamForwarding}). The check never blocks (an API key in memory, a token against keys fetched
 * without blocking), and costs a request that no reload can have touched one volatile read and no operator.
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

	/**
	 * {@link #stillGranted} for a request to {@code upstream}, once {@code upstream} is found to be still configured;
	 * else an error, {@link RelayFailures#serverRemoved} for it.
	 */
	static <T, R> Mono<R> stillServed(RelayExchange exchange, Upstream upstream, T read, Function<T, Mono<R>> then) {
		if (upstream.isRemoved()) {
			return Mono.error(RelayFailures.serverRemoved(upstream.id()));
		}
		return stillGranted(exchange, upstream.id(), read, then);
	}

}
