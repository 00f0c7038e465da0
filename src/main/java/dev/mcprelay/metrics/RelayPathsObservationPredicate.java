package dev.mcprelay.metrics;

import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.stereotype.Component;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;

/**
 * Leaves the MCP paths ({@link McpPaths}) out of Spring's own HTTP server observation ({@code http.server.requests}). Those requests
 * are measured by the relay's meters ({@link RelayMeters}), which carry the MCP server, the JSON-RPC method and the
 * outcome, and end when a stream ends; a second, coarser timer per request would cost time on the hot path and add
 * nothing. Actuator and every other path keep Spring's observation.
 */
@Component
class RelayPathsObservationPredicate implements ObservationPredicate {

	@Override
	public boolean test(String name, Observation.Context context) {
		return !(context instanceof ServerRequestObservationContext server
				&& McpPaths.isMcpPath(server.getCarrier().getPath().pathWithinApplication().value()));
	}

}
