package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Session evictions are counted from 0 for every server and virtual server, so that the first shows as an increase. */
class SessionEvictionCountersTest {

	@Test
	void sessionEvictionsStartAtZeroPerServerAndVirtualServer() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new SessionStoreConfiguration().sessionStore(BoundProperties.of(Map.of("servers.a.url",
				"http://127.0.0.1:1/mcp", "servers.b.url", "http://127.0.0.1:2/mcp", "virtual-servers.all.members[0]", "*")),
				null, null, registry, null);

		assertThat(registry.find(RelayMeters.SESSIONS_EVICTED).counters())
			.extracting(counter -> counter.getId().getTag(RelayMeters.SERVER) + "=" + counter.count())
			.containsExactlyInAnyOrder("a=0.0", "b=0.0", "all=0.0");
	}

}
