package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TestAuthorizationServer;
import dev.mcprelay.testsupport.TestUpstreams;

/**
 * JWT mode with {@code jwk-set-uri} and neither {@code audience} nor {@code issuer} works as the manual says: the relay
 * starts (with the warning about the issuer), and accepts a token its key set signed, whatever its audience. It used to
 * stop start-up with a stack trace ({@code validators cannot be null or empty}).
 */
@ExtendWith(OutputCaptureExtension.class)
class JwtWithoutAudienceTest {

	@Test
	void aJwkSetWithoutAudienceOrIssuerStartsWarnsAndAcceptsItsTokens(CapturedOutput output) {
		try (TestAuthorizationServer auth = new TestAuthorizationServer();
				ConfigurableApplicationContext relay = new SpringApplicationBuilder(McpRelayApplication.class, dev.mcprelay.testsupport.OwnEventLoops.class).run(
						"--server.port=0", "--server.address=127.0.0.1", "--mcp-relay.security.mode=jwt",
						"--mcp-relay.security.jwt.jwk-set-uri=" + auth.issuer() + "/jwks",
						"--mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/stateless"))) {
			int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
			RawHttp http = new RawHttp(port, "Authorization",
					"Bearer " + auth.token("anyone-at-all", "alice", "mcp", Map.of()));

			assertThat(http.send(http.post("sdk", RawHttp.toolsCall(1, "echo"))).statusCode())
				.as("a token of the key set, with an audience nobody configured").isEqualTo(200);
			assertThat(output.getAll()).contains("mcp-relay.security.jwt has no issuer");
		}
	}

}
