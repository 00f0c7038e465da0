package dev.mcprelay.web;


import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.route.McpRoute;
import reactor.core.publisher.Mono;

/**
 * Refuses a request whose path only a lenient reading makes an MCP endpoint path ({@link McpRoute.Kind#AMBIGUOUS_PATH}:
 * {@code /%6dcp/acme}, {@code /mcp/./acme}, {@code /mcp/acme/}, …) with 400 and a JSON-RPC error, reason
 * {@code ambiguous_path}, whatever the method and before anything else looks at the request: the front door, CORS and
 * the relay never see it, nothing is forwarded. Right after the relay's observation, so that the refusal is counted and
 * logged. A client that sends such a path is mistaken or probing: the answer says which forms are served. In security
 * mode {@code none}, {@link McpRoutes} refuses it the same way ({@link #refuse}) on Reactor Netty's route.
 */
final class AmbiguousPathRefusal {

	private AmbiguousPathRefusal() {
	}

	/** Refuses a request on an {@link McpRoute.Kind#AMBIGUOUS_PATH}, on whichever server carries it. */
	static Mono<Void> refuse(McpRoute route, ExchangeRecord record, RelayResponse response) {
		RelayFailure refused = RelayFailures.ambiguousPath(route.problem());
		record.failed(false, refused.reason());
		return RelayAnswers.respond(response, refused, null);
	}

}
