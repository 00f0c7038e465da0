package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.security.CredentialHeaders;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * What interceptors see of the client's headers: never the credential the caller presented to the relay in a secured
 * mode, unless the server's configuration copies that header by name; everything in mode {@code none}; the same for a
 * server a reload added.
 */
class CallContextHeadersTest {

	@Test
	void interceptorsDoNotSeeTheRelaysCredentialInASecuredMode() {
		Map<String, Set<String>> hidden = CredentialHeaders.hiddenByServer(BoundProperties.of(Map.of("security.mode", "api-key",
				"servers.acme.url", "http://127.0.0.1:1/mcp")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, hidden.get("acme"));

		assertThat(context.headers().containsHeader("Authorization")).isFalse();
		assertThat(context.headers().containsHeader("x-api-key")).as("names compare without case").isFalse();
		assertThat(context.headers().getFirst("X-Tenant")).isEqualTo("t1");
		assertThat(context.headers().toString()).doesNotContain("secret-key").doesNotContain("secret-token");
		assertThat(context.sessionId()).isEqualTo("s-1");
	}

	@Test
	void aHeaderTheServerCopiesByNameStaysVisible() {
		Map<String, Set<String>> hidden = CredentialHeaders.hiddenByServer(BoundProperties.of(Map.of("security.mode", "jwt",
				"servers.acme.url", "http://127.0.0.1:1/mcp", "servers.acme.headers[0].name", "X-Upstream-Key",
				"servers.acme.headers[0].from-request-header", "X-Api-Key")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, hidden.get("acme"));

		assertThat(context.headers().getFirst("X-Api-Key")).isEqualTo("secret-key");
		assertThat(context.headers().containsHeader("Authorization")).isFalse();
	}

	@Test
	void withoutSecurityInterceptorsSeeEveryHeader() {
		Map<String, Set<String>> hidden = CredentialHeaders.hiddenByServer(BoundProperties.of(Map.of("security.mode", "none",
				"servers.acme.url", "http://127.0.0.1:1/mcp")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, hidden.get("acme"));

		assertThat(context.headers().getFirst("Authorization")).as("a policy of the operator's own may check it")
			.isEqualTo("Bearer secret-token");
	}

	@Test
	void aServerAReloadAddsHidesTheCredentialFromItsInterceptorsToo() {
		CredentialHeaders credentials = new CredentialHeaders();
		RelayProperties started = BoundProperties.of(Map.of("security.mode", "api-key", "servers.acme.url",
				"http://127.0.0.1:1/mcp"));
		RelayProperties reloaded = BoundProperties.of(Map.of("security.mode", "api-key", "servers.acme.url",
				"http://127.0.0.1:1/mcp", "servers.added.url", "http://127.0.0.1:2/mcp"));

		Map<String, Set<String>> first = credentials.compile(compilation(started, null));
		Map<String, Set<String>> next = credentials.compile(compilation(reloaded, first));

		assertThat(next.get("added")).as("hidden from the added server's interceptors as from the others'")
			.containsExactlyInAnyOrder("authorization", "x-api-key");
	}

	/** What a snapshot of {@code properties} compiles from, after one whose part was {@code previous}. */
	private static SnapshotCompilation compilation(RelayProperties properties, Object previous) {
		return new SnapshotCompilation() {

			@Override
			public RelayProperties properties() {
				return properties;
			}

			@Override
			public <T> T part(SnapshotPart<T> part) {
				throw new UnsupportedOperationException();
			}

			@Override
			@SuppressWarnings("unchecked")
			public <T> T previous(SnapshotPart<T> part) {
				return (T) previous;
			}

			@Override
			public RelayProperties previousProperties() {
				return null;
			}

		};
	}

	private static HttpHeaders inbound() {
		HttpHeaders headers = new HttpHeaders();
		headers.set("Authorization", "Bearer secret-token");
		headers.set("X-API-KEY", "secret-key");
		headers.set("X-Tenant", "t1");
		headers.set("Mcp-Session-Id", "s-1");
		return headers;
	}

}
