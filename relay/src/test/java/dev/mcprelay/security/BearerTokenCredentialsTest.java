package dev.mcprelay.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;

/**
 * The bearer-token reader reads every {@code Authorization} value as Spring Security's bearer-token converter does
 * (its pattern, copied here as the oracle): the same token, the same "malformed", the same "no credential", over
 * generated values that mix token characters, separators, padding, case and characters a token may not hold.
 */
class BearerTokenCredentialsTest {

	/** Spring Security's {@code ServerBearerTokenAuthenticationConverter} pattern. */
	private static final Pattern SPRING = Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$",
			Pattern.CASE_INSENSITIVE);

	private static final String[] PIECES = { "Bearer ", "bearer ", "BEARER ", "Bearer", "Bearer  ", "Basic ", "eyJh",
			"abc", "Z9", "-", ".", "_", "~", "+", "/", "=", "==", " ", "\t", "\"", ",", ";", "%", "é", "\u212a", "a=b",
			"token" };

	private final BearerTokenCredentials reader = new BearerTokenCredentials();

	@Test
	void everyGeneratedAuthorizationIsReadAsSpringSecurityReadsIt() {
		Random random = new Random(25);
		for (int i = 0; i < 20_000; i++) {
			StringBuilder value = new StringBuilder();
			int pieces = 1 + random.nextInt(6);
			for (int p = 0; p < pieces; p++) {
				value.append(PIECES[random.nextInt(PIECES.length)]);
			}
			assertReadAsSpringDoes(value.toString());
		}
		for (String value : new String[] { "Bearer abc", "bearer abc==", "Bearer =", "Bearer ", "Bearer", "Bearerabc",
				"Bearer a b", "Bearer a==b", "Basic abc", "Token abc", "" }) {
			assertReadAsSpringDoes(value);
		}
	}

	@Test
	void noAuthorizationIsNoCredential() {
		assertThat(reader.read(new HttpHeaders())).isNull();
	}

	private void assertReadAsSpringDoes(String authorization) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.AUTHORIZATION, authorization);
		boolean bearer = authorization.regionMatches(true, 0, "bearer", 0, 6);
		Matcher matcher = SPRING.matcher(authorization);
		if (!bearer) {
			assertThat(reader.read(headers)).as("[%s] is no bearer credential", authorization).isNull();
		}
		else if (matcher.matches()) {
			Authentication read = reader.read(headers);
			assertThat(read).as("[%s]", authorization).isInstanceOf(BearerTokenAuthenticationToken.class);
			assertThat(((BearerTokenAuthenticationToken) read).getToken()).isEqualTo(matcher.group("token"));
		}
		else {
			assertThatThrownBy(() -> reader.read(headers)).as("[%s] is malformed", authorization)
				.isInstanceOf(InvalidBearerTokenException.class)
				.hasMessage("Bearer token is malformed");
		}
	}

}
