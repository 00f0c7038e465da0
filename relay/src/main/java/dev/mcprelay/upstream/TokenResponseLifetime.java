package dev.mcprelay.upstream;

import java.io.IOException;
import java.time.Duration;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.security.oauth2.core.web.reactive.function.OAuth2BodyExtractors;
import org.springframework.web.reactive.function.BodyExtractor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads an authorization server's token response as Spring Security does ({@link OAuth2BodyExtractors}: errors, token
 * type, scopes), except that a successful response without {@code expires_in} (RFC 6749 makes it optional) is read as
 * if it said the server's {@code default-token-lifetime}. Spring Security would take such a token as expiring one
 * second after it was issued, so the relay would ask for a new one on every call.
 *
 * <p>The body is read whole, up to {@link #MAX_BODY} (a token response is small; a larger one fails as an invalid
 * token response, and its buffers are released). A response without a body is read as Spring Security reads it: an
 * invalid token response, never nothing.
 */
final class TokenResponseLifetime implements BodyExtractor<Mono<OAuth2AccessTokenResponse>, ReactiveHttpInputMessage> {

	/** The largest token response read. */
	static final int MAX_BODY = 256 * 1024;

	/** The relay's mapper, whose table of member names an authorization server cannot grow ({@code JsonRpcJson}). */
	private static final ObjectMapper JSON = JsonRpcParser.mapper();

	private static final BodyExtractor<Mono<OAuth2AccessTokenResponse>, ReactiveHttpInputMessage> STANDARD = OAuth2BodyExtractors
		.oauth2AccessTokenResponse();

	private final long defaultSeconds;

	TokenResponseLifetime(Duration defaultLifetime) {
		this.defaultSeconds = defaultLifetime.toSeconds();
	}

	@Override
	public Mono<OAuth2AccessTokenResponse> extract(ReactiveHttpInputMessage response, Context context) {
		return DataBufferUtils.join(response.getBody(), MAX_BODY)
			.map(TokenResponseLifetime::bytesOf)
			.onErrorMap(DataBufferLimitException.class,
					tooLarge -> invalid("The token response is larger than " + MAX_BODY / 1024 + " KB"))
			.flatMap(body -> STANDARD.extract(replayed(response.getHeaders(), withLifetime(body)), context))
			.switchIfEmpty(Mono.error(() -> invalid("Empty OAuth 2.0 Access Token Response")));
	}

	/** A message with {@code headers} (but its length) and {@code body}, for Spring Security's reader. */
	private static ReactiveHttpInputMessage replayed(HttpHeaders received, byte[] body) {
		HttpHeaders headers = new HttpHeaders();
		headers.addAll(received);
		headers.remove(HttpHeaders.CONTENT_LENGTH);
		return new ReactiveHttpInputMessage() {

			@Override
			public HttpHeaders getHeaders() {
				return headers;
			}

			@Override
			public Flux<DataBuffer> getBody() {
				return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
			}

		};
	}

	private static OAuth2AuthorizationException invalid(String description) {
		return new OAuth2AuthorizationException(new OAuth2Error("invalid_token_response", description, null));
	}

	/** {@code body} with {@code expires_in} when it is a successful response without one; else {@code body} as it is. */
	byte[] withLifetime(byte[] body) {
		JsonNode json;
		try {
			json = JSON.readTree(body);
		}
		catch (IOException notJson) {
			return body;
		}
		if (json instanceof ObjectNode answer && !answer.has("error") && answer.has("access_token")
				&& (!answer.has("expires_in") || answer.get("expires_in").isNull())) {
			answer.put("expires_in", defaultSeconds);
			try {
				return JSON.writeValueAsBytes(answer);
			}
			catch (IOException ex) {
				return body;
			}
		}
		return body;
	}

	private static byte[] bytesOf(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

}
