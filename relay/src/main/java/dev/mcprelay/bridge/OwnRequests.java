package dev.mcprelay.bridge;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.ProtocolVersions;
import dev.mcprelay.transport.UpstreamRequest;
import reactor.core.publisher.Mono;

/**
 * The one place that builds the requests the relay makes on its own behalf to learn about a server (the
 * {@code initialize} of {@link SessionEraProbe} and the DELETE that ends its session, the {@code server/discover} of
 * {@link ModernProbe}): the server's configured URL, the server's {@link ServerCredentials} and the protocol's headers,
 * nothing of the client whose request made the relay ask. What the answer teaches is learnt for every caller of the
 * server ({@link ServerVersions}), so a client's headers must not choose where the request goes (review 46i, F1: behind
 * a gateway that routes by {@code X-Tenant}, one caller made the relay learn "2026 only" for all). The request is sent
 * for nobody ({@code callerId} {@code null}), made from the server's URL alone, so that nothing of a client's request
 * is kept by an exchange whose verdict outlives it (review 46k, K4). A request whose credentials cannot be had fails,
 * unsent.
 */
final class OwnRequests {

	private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OwnRequests.class);

	private final ServerCredentials credentials;

	private final String serverId;

	/** Whether a refusal of the server's credentials was logged (once per server: review 46j, N2). */
	private final AtomicBoolean refusalLogged = new AtomicBoolean();

	OwnRequests(ServerCredentials credentials, String serverId) {
		this.credentials = credentials;
		this.serverId = serverId;
	}

	/**
	 * Notes the status the server answered an own request with: the first 401 or 403 is logged at WARN, once for the
	 * server (the relay cannot learn its versions with its own credentials, and it is to be pinned: a server whose only
	 * credential is the caller's, a {@code from-request-header} copy or a token exchanged for the caller's, review 46j
	 * N2). Nothing of the answer is logged but its status.
	 */
	void answered(HttpStatusCode status) {
		int code = status.value();
		if ((code == 401 || code == 403) && refusalLogged.compareAndSet(false, true)) {
			log.warn("MCP server '{}' refused the relay's own request with HTTP {}: cannot learn the versions of '{}' "
					+ "with the relay's own credentials: pin protocol-versions", serverId, code, serverId);
		}
	}

	/**
	 * Whether an answer of {@code status} is a passing state rather than the server's word on the request: a 5xx (a
	 * gateway whose server restarts, say), 408 or 429. Such an answer, like a failed exchange or none in time, is
	 * asked again soon ({@link SharedVerdict#RETRY}), not kept for the interval (review 46k, K5).
	 */
	static boolean passing(HttpStatusCode status) {
		int code = status.value();
		return status.is5xxServerError() || code == 408 || code == 429;
	}

	/**
	 * Whether an answer of {@code status} carrying {@code message} (the JSON object its body held, {@code null} for none
	 * or one not read yet) is the server's word on an own request, to be kept as its verdict: a JSON-RPC result or
	 * error, or a 4xx the refusal rules read ({@link Refusals}); never a passing state ({@link #passing}). A 2xx or 3xx
	 * that carries no JSON-RPC message (a gateway's maintenance page answered 200, a redirect) is no answer: asked again
	 * soon, like a 503 (review 46l, N4).
	 */
	static boolean serversWord(HttpStatusCode status, ObjectNode message) {
		if (passing(status)) {
			return false;
		}
		return status.is4xxClientError() || (message != null && (message.has("result") || message.has("error")));
	}

	/**
	 * A POST of {@code message} in the session era (no session: an {@code initialize}), to the server's configured URL
	 * {@code uri}.
	 */
	Mono<UpstreamRequest> sessionEra(URI uri, ObjectNode message) {
		return credentials.headers().map(headers -> post(uri, media(headers), message));
	}

	/** A 2026-07-28 POST of {@code message} (its method in {@code Mcp-Method}) to the server's URL {@code uri}. */
	Mono<UpstreamRequest> perRequest(URI uri, ObjectNode message) {
		return credentials.headers().map(headers -> {
			HttpHeaders own = media(headers);
			own.set("MCP-Protocol-Version", ProtocolVersions.PER_REQUEST);
			own.set("Mcp-Method", ModernRequests.headerValue(message.path("method").asText()));
			return post(uri, own, message);
		});
	}

	/** The DELETE that ends the session {@code sessionId} (of {@code version}) an own request opened. */
	Mono<UpstreamRequest> end(URI uri, String sessionId, String version) {
		return credentials.headers().map(headers -> {
			headers.set("Mcp-Session-Id", sessionId);
			headers.set("MCP-Protocol-Version", version);
			return new UpstreamRequest(serverId, HttpMethod.DELETE, uri, headers, null, null, null);
		});
	}

	private static HttpHeaders media(HttpHeaders headers) {
		headers.set(HttpHeaders.ACCEPT, "application/json, text/event-stream");
		headers.set(HttpHeaders.CONTENT_TYPE, "application/json");
		return headers;
	}

	private UpstreamRequest post(URI uri, HttpHeaders headers, ObjectNode message) {
		return new UpstreamRequest(serverId, HttpMethod.POST, uri, headers,
				message.toString().getBytes(StandardCharsets.UTF_8), null, null);
	}

}
