package dev.mcprelay.security;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;

/**
 * Lets a request present at most one credential before the mode's own reader ({@link ApiKeyCredentials},
 * {@link BearerTokenCredentials}) looks at it: a request carrying more than one value across the headers the front
 * door reads ({@link CredentialHeaders#NAMES}: {@code Authorization} twice, or {@code Authorization} and
 * {@code X-Api-Key} together, in any order and whether each would verify or not) is refused with 401 and reason
 * {@code ambiguous_credentials}, counted like every refusal. The relay never guesses which credential the client
 * meant: one good and one bad credential would otherwise be served or refused by the order the reader looks in.
 */
final class SingleCredential implements CredentialReader {

	private final CredentialReader reader;

	SingleCredential(CredentialReader reader) {
		this.reader = reader;
	}

	@Override
	public Authentication read(HttpHeaders headers) {
		int presented = 0;
		for (String name : CredentialHeaders.NAMES) {
			List<String> values = headers.get(name);
			presented += values == null ? 0 : values.size();
		}
		if (presented > 1) {
			throw FrontDoorException.unauthenticated("ambiguous_credentials",
					"The request carries more than one credential: send exactly one, as Authorization: Bearer "
							+ "<credential> or (API keys) X-Api-Key: <key>");
		}
		return reader.read(headers);
	}

}
