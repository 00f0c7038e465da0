package dev.mcprelay.interceptors.toolsearch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/** The meters of tool search on one server, registered once. */
final class ToolSearchMeters {

	/** Counter: searches answered. Tag: {@code server}. */
	static final String SEARCHES = "mcp.relay.tool.search.requests";

	/** Summary: tools one search returned. Tag: {@code server}. */
	static final String RESULTS = "mcp.relay.tool.search.results";

	/** Summary: tools a session exposes after a search (found ones and earlier ones). Tag: {@code server}. */
	static final String EXPOSED = "mcp.relay.tool.search.exposed";

	private final Counter searches;

	private final DistributionSummary results;

	private final DistributionSummary exposed;

	ToolSearchMeters(MeterRegistry registry, String server) {
		this.searches = Counter.builder(SEARCHES).description("Tool searches answered").tag("server", server)
			.register(registry);
		this.results = DistributionSummary.builder(RESULTS).description("Tools one search returned")
			.tag("server", server).register(registry);
		this.exposed = DistributionSummary.builder(EXPOSED).description("Tools a session exposes after a search")
			.tag("server", server).register(registry);
	}

	void searched(int found, int exposedNow) {
		searches.increment();
		results.record(found);
		exposed.record(exposedNow);
	}

}
