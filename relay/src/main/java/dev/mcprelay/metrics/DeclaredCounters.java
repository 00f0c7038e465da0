package dev.mcprelay.metrics;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.VirtualServerProperties;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Registers at 0, at start-up, the failure counters whose tag values the configuration names, so that they are exported
 * before their first event: a counter that appears only then shows Prometheus no increase for it ({@code rate()} and
 * {@code increase()} need two samples), and a dashboard panel over it shows "No data" instead of 0. Those are
 * {@link RelayMeters#CLIENT_STALLS} per server, {@link RelayMeters#VIRTUAL_MEMBER_UNAVAILABLE} and
 * {@link RelayMeters#VIRTUAL_NAME_CLASHES} per virtual server and member, and in a secured mode
 * {@link RelayMeters#AUTH_FAILURES} per server (and {@code unknown}, {@code none}) for each reason the mode's front door
 * gives. The rate limits' and the stores' counters are declared where their rules and stores are made; the
 * interceptors' rejections where the chains are built ({@code InterceptorMeters.runsFor}).
 * The descriptions are those the counters are incremented with.
 */
@Component
class DeclaredCounters {

	/** The reasons the front door gives in each secured mode. */
	static final List<String> API_KEY_REASONS = List.of("missing_credentials", "malformed_credentials",
			"ambiguous_credentials", "invalid_api_key", "server_not_allowed", "management_not_allowed");

	static final List<String> JWT_REASONS = List.of("missing_credentials", "malformed_credentials",
			"ambiguous_credentials", "token_expired", "token_not_yet_valid", "invalid_audience", "invalid_issuer",
			"invalid_signature", "malformed_token", "invalid_token", "missing_client_claim", "insufficient_scope",
			"management_not_allowed", "authentication_unavailable");

	DeclaredCounters(RelayProperties properties, MeterRegistry registry) {
		KeptCounters counters = new KeptCounters(registry);
		properties.servers().keySet().forEach(server -> counters.declare(RelayMeters.CLIENT_STALLS,
				"Streams closed because the client read nothing for timeouts.client-write", RelayMeters.SERVER, server));
		properties.virtualServers().forEach((virtualServer, virtual) -> members(properties, virtual).forEach(member -> {
			counters.declare(RelayMeters.VIRTUAL_MEMBER_UNAVAILABLE,
					"Members of a virtual server that could not serve a message (down, slow, refused)",
					RelayMeters.VIRTUAL_SERVER, virtualServer, RelayMeters.SERVER, member);
			counters.declare(RelayMeters.VIRTUAL_NAME_CLASHES,
					"Tools, prompts and resources of a virtual server's member left out: an earlier member has the name",
					RelayMeters.VIRTUAL_SERVER, virtualServer, RelayMeters.SERVER, member);
		}));
		SecurityMode mode = properties.security().mode();
		List<String> reasons = mode == SecurityMode.API_KEY ? API_KEY_REASONS
				: mode == SecurityMode.JWT ? JWT_REASONS : List.of();
		List<String> servers = new ArrayList<>(properties.servers().keySet());
		servers.addAll(properties.virtualServers().keySet());
		servers.add(ExchangeRecord.UNKNOWN_SERVER);
		servers.add("none");
		reasons.forEach(reason -> servers.forEach(server -> counters.declare(RelayMeters.AUTH_FAILURES,
				"Requests the front door refused, by reason", RelayMeters.REASON, reason, RelayMeters.SERVER, server)));
	}

	/** A virtual server's members: its list, with {@code *} standing for every server. */
	private static List<String> members(RelayProperties properties, VirtualServerProperties virtual) {
		return virtual.members().contains("*") ? List.copyOf(properties.servers().keySet()) : virtual.members();
	}

}
