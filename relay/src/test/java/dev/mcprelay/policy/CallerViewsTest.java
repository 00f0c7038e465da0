package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * A caller's view of a server is made once where its requests cannot change it ({@link CallerViews}), and is always
 * the view {@link UpstreamView#of} makes of the request: what a request sends the server by a header of its own, or
 * what its interceptors set upstream, still makes its own view, and a reload that moves the server makes another.
 */
class CallerViewsTest {

	private static final String URL = "http://127.0.0.1:18101/mcp";

	@Test
	void eachRequestsViewIsTheOneItsRequestMakes() {
		CallerViews views = new CallerViews();
		ServerProperties plain = server(Map.of("servers.alpha.url", URL));
		ServerProperties byTenant = server(Map.of("servers.alpha.url", URL, "servers.alpha.headers[0].name",
				"X-Tenant", "servers.alpha.headers[0].from-request-header", "X-Tenant"));
		ServerProperties byClaim = server(Map.of("servers.alpha.url", URL, "servers.alpha.headers[0].name", "X-User",
				"servers.alpha.headers[0].from-caller-claim", "sub"));
		Caller alice = Caller.apiKey("alice");
		Caller bob = Caller.token("bob", java.util.Set.of(), Map.of("sub", "bob"));
		for (int twice = 0; twice < 2; twice++) {
			for (Caller caller : List.of(alice, bob, Caller.ANONYMOUS)) {
				for (ServerProperties server : List.of(plain, byTenant, byClaim)) {
					for (String tenant : List.of("good", "evil")) {
						CallContext context = context(caller, tenant);
						assertThat(views.of(context, server)).as("%s %s %s", caller, server.headers(), tenant)
							.isEqualTo(UpstreamView.of(context, server));
						CallContext set = context(caller, tenant);
						set.upstreamHeaders().set("X-Tenant", tenant);
						assertThat(views.of(set, server)).as("an interceptor set a header")
							.isEqualTo(UpstreamView.of(set, server))
							.isNotEqualTo(UpstreamView.of(context, server));
					}
				}
			}
		}
		assertThat(views.of(context(alice, "good"), byTenant)).as("the request's header is the server's: its own view")
			.isNotEqualTo(views.of(context(alice, "evil"), byTenant));
		ServerProperties moved = server(Map.of("servers.alpha.url", "http://127.0.0.1:18103/mcp"));
		assertThat(views.of(context(alice, "good"), moved)).as("the server moved by a reload")
			.isEqualTo(UpstreamView.of(context(alice, "good"), moved))
			.isNotEqualTo(views.of(context(alice, "good"), plain));
	}

	private static CallContext context(Caller caller, String tenant) {
		return new CallContext("alpha", RequestHeaders.of(Map.of("X-Tenant", List.of(tenant))), caller);
	}

	private static ServerProperties server(Map<String, String> properties) {
		return BoundProperties.of(properties).servers().get("alpha");
	}

}
