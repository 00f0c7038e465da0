package dev.mcprelay.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import com.nimbusds.jwt.SignedJWT;

import dev.mcprelay.testsupport.SpringAuthorizationServer;

class AuthorizationServerSmokeTest {

	@Test
	void issuesATokenForTheAudienceAsked() throws Exception {
		try (SpringAuthorizationServer server = new SpringAuthorizationServer(Duration.ofSeconds(5))) {
			String token = server.callerToken("https://upstream.example");
			SignedJWT jwt = SignedJWT.parse(token);
			assertThat(jwt.getJWTClaimsSet().getAudience()).containsExactly("https://upstream.example");
			assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo(SpringAuthorizationServer.CALLER_CLIENT);
			assertThat(server.tokenRequests()).isEqualTo(1);
		}
	}

}
