package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * A view is the upstream as the relay reaches it as well as the caller: after a reload moves a server to another URL,
 * or changes whom the relay speaks to it as, what the first upstream published (kept per view by
 * {@link PublishedCatalogues}, tool search and the virtual servers' lists) never decides a call to the other.
 */
class UpstreamViewTest {

	private static final Caller ALICE = Caller.apiKey("alice");

	@Test
	void aServerMovedToAnotherUrlIsAnotherView() {
		assertThat(view(Map.of("servers.alpha.url", "http://127.0.0.1:18101/mcp")))
			.isEqualTo(view(Map.of("servers.alpha.url", "http://127.0.0.1:18101/mcp")))
			.isNotEqualTo(view(Map.of("servers.alpha.url", "http://127.0.0.1:18103/mcp")));
	}

	@Test
	void anotherCredentialOrFixedHeaderIsAnotherView() {
		String url = "http://127.0.0.1:18101/mcp";
		UpstreamView plain = view(Map.of("servers.alpha.url", url));
		assertThat(view(Map.of("servers.alpha.url", url, "servers.alpha.authorization", "Bearer tenant-b")))
			.isNotEqualTo(plain);
		assertThat(view(Map.of("servers.alpha.url", url, "servers.alpha.headers[0].name", "X-Tenant",
				"servers.alpha.headers[0].value", "b")))
			.isNotEqualTo(plain);
	}

	private static UpstreamView view(Map<String, String> properties) {
		ServerProperties server = BoundProperties.of(properties).servers().get("alpha");
		return UpstreamView.beforeInterceptors("alpha", ALICE, name -> List.of(), server);
	}

}
