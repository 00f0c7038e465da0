package dev.mcprelay.security;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.core.Authentication;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.ApiKeyProperties;
import reactor.core.publisher.Mono;

/**
 * Checks a presented API key against {@code mcp-relay.security.api-keys}: the key's SHA-256 is compared with every
 * configured hash in constant time (each comparison, and always all of them), so neither the answer's timing nor a
 * log tells anything about the configured keys. An unknown key fails with {@link FrontDoorException} reason
 * {@code invalid_api_key}.
 */
final class ApiKeys implements ReactiveAuthenticationManager {

	private record Entry(byte[] sha256, Caller caller, boolean management) {
	}

	private final List<Entry> entries;

	ApiKeys(List<ApiKeyProperties> keys) {
		this.entries = keys.stream()
			.map(key -> new Entry(HexFormat.of().parseHex(key.keySha256().toLowerCase(java.util.Locale.ROOT)),
					Caller.apiKey(key.client()), key.management()))
			.toList();
	}

	@Override
	public Mono<Authentication> authenticate(Authentication authentication) {
		if (!(authentication instanceof ApiKeyAuthentication presented) || presented.presentedKey() == null) {
			return Mono.empty();
		}
		byte[] hash = Sha256.bytes(presented.presentedKey());
		Entry match = null;
		for (Entry entry : entries) {
			if (MessageDigest.isEqual(entry.sha256(), hash) && match == null) {
				match = entry;
			}
		}
		if (match == null) {
			return Mono.error(FrontDoorException.unauthenticated("invalid_api_key", "The API key is not valid"));
		}
		return Mono.just(ApiKeyAuthentication.accepted(match.caller(), match.management()));
	}

}
