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
 * {@code invalid_api_key}. A key another snapshot's {@code ApiKeys} accepted is checked again by the hash it was
 * accepted with ({@link ApiKeyAuthentication#keySha256()}), in the same constant time: a reload that revoked it
 * refuses it as it would the key itself, and one that gave its hash to another client names that client. One
 * {@code ApiKeys} per configuration snapshot ({@link CallerAuthentication}).
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
		if (!(authentication instanceof ApiKeyAuthentication presented)) {
			return Mono.empty();
		}
		byte[] hash = presented.keySha256() != null ? presented.keySha256()
				: presented.presentedKey() != null ? Sha256.bytes(presented.presentedKey()) : null;
		if (hash == null) {
			return Mono.empty();
		}
		Entry match = null;
		for (Entry entry : entries) {
			if (MessageDigest.isEqual(entry.sha256(), hash) && match == null) {
				match = entry;
			}
		}
		if (match == null) {
			return Mono.error(FrontDoorException.unauthenticated("invalid_api_key", "The API key is not valid"));
		}
		return Mono.just(ApiKeyAuthentication.accepted(match.caller(), match.management(), hash));
	}

}
