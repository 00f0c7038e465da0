package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.security.CredentialHeaders;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * What interceptors see of the client's headers: never the credential the caller presented to the relay in a secured
 * mode, unless the server's configuration copies that header by name; everything in mode {@code none}.
 */
class CallContextHeadersTest {

	@Test
	void interceptorsDoNotSeeTheRelaysCredentialInASecuredMode() {
		CredentialHeaders credentials = new CredentialHeaders(BoundProperties.of(Map.of("security.mode", "api-key",
				"servers.acme.url", "http://127.0.0.1:1/mcp")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, credentials.hiddenFrom("acme"));

		assertThat(context.headers().containsHeader("Authorization")).isFalse();
		assertThat(context.headers().containsHeader("x-api-key")).as("names compare without case").isFalse();
		assertThat(context.headers().getFirst("X-Tenant")).isEqualTo("t1");
		assertThat(context.headers().toString()).doesNotContain("secret-key").doesNotContain("secret-token");
		assertThat(context.sessionId()).isEqualTo("s-1");
	}

	@Test
	void aHeaderTheServerCopiesByNameStaysVisible() {
		CredentialHeaders credentials = new CredentialHeaders(BoundProperties.of(Map.of("security.mode", "jwt",
				"servers.acme.url", "http://127.0.0.1:1/mcp", "servers.acme.headers[0].name", "X-Upstream-Key",
				"servers.acme.headers[0].from-request-header", "X-Api-Key")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, credentials.hiddenFrom("acme"));

		assertThat(context.headers().getFirst("X-Api-Key")).isEqualTo("secret-key");
		assertThat(context.headers().containsHeader("Authorization")).isFalse();
	}

	@Test
	void withoutSecurityInterceptorsSeeEveryHeader() {
		CredentialHeaders credentials = new CredentialHeaders(BoundProperties.of(Map.of("security.mode", "none",
				"servers.acme.url", "http://127.0.0.1:1/mcp")));

		CallContext context = new CallContext("acme", SpringRequestHeaders.of(inbound()), Caller.ANONYMOUS, credentials.hiddenFrom("acme"));

		assertThat(context.headers().getFirst("Authorization")).as("a policy of the operator's own may check it")
			.isEqualTo("Bearer secret-token");
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
