package dev.mcprelay.metrics;

import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.stereotype.Component;

import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

/**
 * Leaves the requests the relay observes itself ({@link McpRoute#isObserved()}) out of Spring's own HTTP server observation ({@code http.server.requests}). Those requests
 * are measured by the relay's meters ({@link RelayMeters}), which carry the MCP server, the JSON-RPC method and the
 * outcome, and end when a stream ends; a second, coarser timer per request would cost time on the hot path and add
 * nothing. Actuator and every other path keep Spring's observation.
 */
@Component
class RelayPathsObservationPredicate implements ObservationPredicate {

	private final McpRouting routing;

	RelayPathsObservationPredicate(McpRouting routing) {
		this.routing = routing;
	}

	@Override
	public boolean test(String name, Observation.Context context) {
		return !(context instanceof ServerRequestObservationContext server
				&& routing.peek(server.getCarrier(), server.getAttributes()).isObserved());
	}

}
