package dev.mcprelay.proxy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.util.unit.DataSize;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.metrics.RelayOutcome;
import dev.mcprelay.transport.UpstreamTransportException;

/** Every failure the relay reports, in one place, with its HTTP status, JSON-RPC code and wording. */
public final class RelayFailures {

	/**
	 * The HTTP methods {@code /mcp/{server}} takes, as a 405 names them in {@code Allow}: {@code POST, GET, DELETE},
	 * in that order on every replica (a {@code Set.of}'s order changes from one JVM to the next).
	 */
	static final Set<HttpMethod> ENDPOINT_METHODS = Collections
		.unmodifiableSet(new LinkedHashSet<>(List.of(HttpMethod.POST, HttpMethod.GET, HttpMethod.DELETE)));

	private RelayFailures() {
	}

	/** The message names no configured server: a caller who may not use the relay must not learn which exist. */
	public static RelayFailure unknownServer(String server) {
		return new RelayFailure(HttpStatus.NOT_FOUND, JsonRpcErrorCodes.INVALID_REQUEST, "unknown_server", null,
				"Unknown MCP server '" + server + "'. Check the server id in the URL: /mcp/{server} or /{server}/mcp, "
						+ "with an id configured under mcp-relay.servers.");
	}

	public static RelayFailure noDefaultServer() {
		return new RelayFailure(HttpStatus.NOT_FOUND, JsonRpcErrorCodes.INVALID_REQUEST, "no_default_server", null,
				"This relay serves several MCP servers and /mcp names none of them: use /mcp/{server} or "
						+ "/{server}/mcp, or an operator can set mcp-relay.default-server.");
	}

	public static RelayFailure notFound() {
		return new RelayFailure(HttpStatus.NOT_FOUND, JsonRpcErrorCodes.INVALID_REQUEST, "not_found", null,
				"Nothing is served at this path. MCP servers are at /mcp/{server} or /{server}/mcp.");
	}

	/** A path that is an MCP endpoint path only when read leniently ({@code /%6dcp/acme}, {@code /mcp/acme/}): 400. */
	public static RelayFailure ambiguousPath(String problem) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "ambiguous_path", null,
				problem + " Use /mcp, /mcp/{server} or /{server}/mcp exactly.");
	}

	/** A request Spring Security's firewall refused (an encoded {@code %} or {@code /}, control characters): 400. */
	public static RelayFailure requestRejected() {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "request_rejected", null,
				"The request was refused: its path or headers hold forms the relay does not accept (an encoded '%', "
						+ "'/', '\\' or NUL, ';' parameters, '..' segments, control characters).");
	}

	/** A request the HTTP layer refused before the relay saw it (an unsupported media type, a malformed header). */
	public static RelayFailure httpError(HttpStatus status) {
		String reason = status.name().toLowerCase(java.util.Locale.ROOT);
		return new RelayFailure(status, JsonRpcErrorCodes.INVALID_REQUEST, reason, null,
				"The request was refused: " + status.getReasonPhrase() + ".");
	}

	/**
	 * The front door found no acceptable credentials (401). The data names no server: a caller who may not use the
	 * relay must not learn which exist.
	 */
	public static RelayFailure unauthenticated(String reason, String message) {
		return new RelayFailure(HttpStatus.UNAUTHORIZED, JsonRpcErrorCodes.INVALID_REQUEST, reason, null, message);
	}

	/** The caller is known but may not use this server or path (403). */
	public static RelayFailure forbidden(String reason, String server, String message) {
		return new RelayFailure(HttpStatus.FORBIDDEN, JsonRpcErrorCodes.INVALID_REQUEST, reason, server, message);
	}

	/** A required configured header copies a claim the caller's token does not have (400). */
	public static RelayFailure missingCallerClaim(String server, String claim) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "missing_caller_claim", server,
				"Server '" + server + "' needs the caller's '" + claim + "' claim, and the credentials carry none.");
	}

	/** The front door cannot check credentials now (its key source is unreachable): 503, nothing forwarded. */
	public static RelayFailure authenticationUnavailable(String message) {
		return new RelayFailure(HttpStatus.SERVICE_UNAVAILABLE, JsonRpcErrorCodes.INTERNAL_ERROR,
				"authentication_unavailable", null, message);
	}

	/** Something failed inside the relay; the message says nothing about what. */
	public static RelayFailure internalError() {
		return new RelayFailure(HttpStatus.INTERNAL_SERVER_ERROR, JsonRpcErrorCodes.INTERNAL_ERROR, "internal_error",
				null, "The relay failed to handle the request; the operator can find the cause in its log.");
	}

	/**
	 * The client stopped sending its request before it was whole (nothing for
	 * {@code client-connections.request-read-timeout}): 408, the client's fault; nothing was forwarded, and the
	 * connection is closed after the answer. No server is named: the answer comes from the HTTP layer, before any
	 * routing the body would decide.
	 */
	public static RelayFailure requestReadTimeout() {
		return new RelayFailure(HttpStatus.REQUEST_TIMEOUT, JsonRpcErrorCodes.INVALID_REQUEST, "request_read_timeout",
				null, "The request stopped arriving before it was whole (nothing came for the relay's "
						+ "request-read-timeout); nothing was forwarded: send the whole request again.");
	}

	public static RelayFailure methodNotAllowed(String server, HttpMethod method) {
		return new RelayFailure(HttpStatus.METHOD_NOT_ALLOWED, JsonRpcErrorCodes.INVALID_REQUEST, "method_not_allowed",
				server, "The MCP endpoint takes POST, GET and DELETE, not " + method.name() + ".");
	}

	public static RelayFailure originNotAllowed(String origin) {
		return new RelayFailure(HttpStatus.FORBIDDEN, JsonRpcErrorCodes.INVALID_REQUEST, "origin_not_allowed", null,
				"Origin '" + origin + "' is not allowed to call this relay; an operator can add it to mcp-relay.allowed-origins.");
	}

	public static RelayFailure hostNotAllowed() {
		return new RelayFailure(HttpStatus.FORBIDDEN, JsonRpcErrorCodes.INVALID_REQUEST, "host_not_allowed", null,
				"This relay listens on a loopback address and answers only requests for localhost, 127.0.0.1 or [::1].");
	}

	public static RelayFailure requestTooLarge(String server, DataSize limit) {
		return new RelayFailure(HttpStatus.CONTENT_TOO_LARGE, JsonRpcErrorCodes.INVALID_REQUEST, "request_too_large",
				server, "The request body is larger than the " + format(limit) + " this relay accepts for '" + server + "'.");
	}

	/**
	 * The body is within {@code max-buffered-body}, but the JSON tree parsed from it takes more memory, with its bytes,
	 * than one request may ever hold of the budget for bodies ({@link BufferedBodies}): it would never be read, so it
	 * is not worth sending again. Decided while parsing, before anything is forwarded.
	 */
	public static RelayFailure requestTooHeavy(String server, long weight, long ceiling) {
		return new RelayFailure(HttpStatus.CONTENT_TOO_LARGE, JsonRpcErrorCodes.INVALID_REQUEST, "request_too_large",
				server, "The request body, parsed, takes more memory (over " + roughly(weight) + ") than this relay lets "
						+ "one request hold (" + roughly(ceiling) + "); send a smaller body (many small values take "
						+ "far more memory than their text; a long string about its text, up to five times it while "
						+ "decoded when it has characters past U+00FF).");
	}

	public static RelayFailure unparsableRequest(String server, JsonRpcParseException cause) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, cause.errorCode(),
				cause.notJson() ? "parse_error" : "invalid_request", server, cause.getMessage());
	}

	public static RelayFailure unreadableContentType(String server) {
		return new RelayFailure(HttpStatus.UNSUPPORTED_MEDIA_TYPE, JsonRpcErrorCodes.INVALID_REQUEST,
				"unsupported_media_type", server, "The Content-Type header is not a media type; send application/json.");
	}

	public static RelayFailure headerMismatch(String server, String header, String field) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.HEADER_MISMATCH, "header_mismatch", server,
				"The " + header + " header does not match " + field + " in the request body; send the same value in both.");
	}

	/**
	 * An argument the called tool declares for an {@code Mcp-Param-*} header cannot be carried in the header the relay
	 * would write for it ({@link ParameterHeaders#unwritable}: longer than
	 * {@link dev.mcprelay.transport.WrittenHeaderBound#MAX_BYTES} bytes so written, or a string that is no valid
	 * Unicode): refused (400, -32602, {@code header_unwritable}) before anything goes upstream, rather than sent
	 * without it, with one that disagrees with the body, or with one a server or gateway refuses with an HTTP error of
	 * its own and no JSON-RPC answer (review 43j N-5, 46k K3).
	 */
	public static RelayFailure parameterHeaderUnwritable(String server, String header, String field, String why) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_PARAMS, "header_unwritable", server,
				"The " + header + " header that " + field + " needs cannot be written: " + why + ".");
	}

	/**
	 * A request's {@code Mcp-Param-*} headers cannot be checked against the arguments they mirror
	 * ({@link ParameterHeaderChecks}): the server's tool list, which says which argument each header mirrors, could not
	 * be read ({@code why}). Refused rather than passed unchecked (502, -32603); nothing is forwarded.
	 */
	public static RelayFailure parameterHeadersUncheckable(String server, String why) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "header_uncheckable", server,
				"The Mcp-Param-* headers cannot be checked against the arguments they mirror: " + why + ".");
	}

	/** A single-valued request header repeated with different values ({@link SingleValuedHeaders}): 400. */
	public static RelayFailure conflictingHeader(String server, String header) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "conflicting_header", server,
				"The " + header + " header is sent more than once with different values; send it once.");
	}

	public static RelayFailure missingRequiredHeader(String server, String inboundHeader) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "missing_required_header",
				server, "Missing required request header '" + inboundHeader + "': server '" + server
						+ "' needs it to forward your request.");
	}

	public static RelayFailure upstreamUnreachable(String server, String what) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_unreachable", server,
				"MCP server '" + server + "' could not be reached: " + what + ".");
	}

	public static RelayFailure upstreamTimeout(String server, Duration limit) {
		return new RelayFailure(HttpStatus.GATEWAY_TIMEOUT, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_timeout", server,
				"MCP server '" + server + "' did not answer within " + format(limit) + ".");
	}

	public static RelayFailure upstreamResponseTooLarge(String server, DataSize limit) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_response_too_large",
				server, "MCP server '" + server + "' sent a message larger than the " + format(limit) + " this relay accepts.");
	}

	public static RelayFailure upstreamInvalidResponse(String server, String detail) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_invalid_response",
				server, "MCP server '" + server + "' sent an invalid response: " + detail + ".");
	}

	public static RelayFailure upstreamErrorStatus(String server, int status) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_error_status",
				server, "MCP server '" + server + "' refused the request with HTTP " + status + ".");
	}

	public static RelayFailure upstreamStreamIdle(String server, Duration limit) {
		return new RelayFailure(HttpStatus.GATEWAY_TIMEOUT, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_stream_idle",
				server, "MCP server '" + server + "' sent nothing for " + format(limit)
						+ " before answering; the stream was closed.");
	}

	public static RelayFailure upstreamStreamBroken(String server) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_stream_broken",
				server, "The stream from MCP server '" + server + "' broke off before the answer arrived.");
	}

	/** A reload removed the server while the request was waiting for it. */
	public static RelayFailure serverRemoved(String server) {
		return new RelayFailure(HttpStatus.NOT_FOUND, JsonRpcErrorCodes.INTERNAL_ERROR, "server_removed", server,
				"MCP server '" + server + "' was removed from the relay's configuration before it answered.");
	}

	/** What a request waiting on a session of a legacy SSE server is told when a reload removed the server. */
	static dev.mcprelay.transport.UpstreamTransportException retiredSessionOfRemovedServer(String server) {
		return new dev.mcprelay.transport.UpstreamTransportException(
				dev.mcprelay.transport.UpstreamTransportException.Kind.UNKNOWN_SESSION, "server_removed",
				"MCP server '" + server + "' was removed from the relay's configuration before it answered.");
	}

	/** What a request waiting on a session of a legacy SSE server is told when a reload changed the server. */
	static dev.mcprelay.transport.UpstreamTransportException retiredSessionOfChangedServer(String server) {
		return new dev.mcprelay.transport.UpstreamTransportException(
				dev.mcprelay.transport.UpstreamTransportException.Kind.UNKNOWN_SESSION, "session_ended",
				"This MCP session of server '" + server + "' has ended: a configuration reload changed the server; "
						+ "initialize a new one.");
	}

	/**
	 * A request on a session that a reload ended by changing its server (a legacy SSE server's bridged session, a
	 * virtual server's session): 404, so that the client initializes a new one on the new settings.
	 */
	public static RelayFailure sessionEnded(String server) {
		return transportFailure(server, retiredSessionOfChangedServer(server));
	}

	/** A reload withdrew the caller's access to the server (its allowed-scopes) while the request was waiting for it. */
	public static RelayFailure accessWithdrawn(String server) {
		return new RelayFailure(HttpStatus.FORBIDDEN, JsonRpcErrorCodes.INTERNAL_ERROR, "access_withdrawn", server,
				"Access to MCP server '" + server + "' was withdrawn by the relay's configuration before it answered.");
	}

	public static RelayFailure relayShuttingDown(String server) {
		return new RelayFailure(HttpStatus.SERVICE_UNAVAILABLE, JsonRpcErrorCodes.INTERNAL_ERROR, "relay_shutting_down",
				server, "The relay is shutting down before MCP server '" + server + "' answered; send the request again.");
	}

	/**
	 * A transport's own failure: an unknown session is the client's to fix (404: it re-initializes, as MCP prescribes
	 * for a session that ended); the others are the upstream's (502, 504) or the relay's limits (503, 409).
	 */
	public static RelayFailure transportFailure(String server, UpstreamTransportException failure) {
		HttpStatus status = switch (failure.kind()) {
			case UNKNOWN_SESSION -> HttpStatus.NOT_FOUND;
			case UPSTREAM_TIMEOUT -> HttpStatus.GATEWAY_TIMEOUT;
			case TOO_MANY_SESSIONS, HELD_MESSAGES_FULL -> HttpStatus.SERVICE_UNAVAILABLE;
			case CONFLICT -> HttpStatus.CONFLICT;
			case UPSTREAM_FAILED -> HttpStatus.BAD_GATEWAY;
		};
		int code = status.is4xxClientError() ? JsonRpcErrorCodes.INVALID_REQUEST : JsonRpcErrorCodes.INTERNAL_ERROR;
		return new RelayFailure(status, code, failure.reason(), server, failure.getMessage());
	}

	/**
	 * The client presents a session id that is not one of its sessions with this server (another caller's, altered,
	 * invented): the same 404 as a session that ended, so that the client initializes a new one and learns nothing.
	 */
	public static RelayFailure unknownSession(String server) {
		return new RelayFailure(HttpStatus.NOT_FOUND, JsonRpcErrorCodes.INVALID_REQUEST, "session_not_found", server,
				"No MCP session with that id is open for server '" + server + "' (it ended, expired, or belongs to "
						+ "another caller); initialize a new one.");
	}

	/**
	 * The bodies the relay holds for its clients' requests take all the memory they may
	 * ({@code mcp-relay.max-buffered-bodies}): 503, nothing more is read; the client may try again shortly.
	 */
	public static RelayFailure relayOverloaded() {
		return new RelayFailure(HttpStatus.SERVICE_UNAVAILABLE, JsonRpcErrorCodes.INTERNAL_ERROR, "relay_overloaded",
				null, "The relay holds as many request and response bodies as its memory allows; try again shortly.",
				RelayOutcome.OVERLOADED);
	}

	/** Whether {@code failure} is {@link #unknownSession}'s. */
	public static boolean isUnknownSession(RelayFailure failure) {
		return "session_not_found".equals(failure.reason());
	}

	/** The session store did not answer; nothing the client holds can be trusted to work: 503. */
	public static RelayFailure sessionStoreUnavailable(String server) {
		return new RelayFailure(HttpStatus.SERVICE_UNAVAILABLE, JsonRpcErrorCodes.INTERNAL_ERROR,
				"session_store_unavailable", server, "The relay's session store is unavailable; try again shortly.");
	}

	public static RelayFailure upstreamFailed(String server) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_failed", server,
				"The exchange with MCP server '" + server + "' failed.");
	}

	private static String format(DataSize size) {
		long bytes = size.toBytes();
		if (bytes % DataSize.ofMegabytes(1).toBytes() == 0) {
			return size.toMegabytes() + "MB";
		}
		return bytes % 1024 == 0 ? size.toKilobytes() + "KB" : bytes + "B";
	}

	/** {@code bytes} in whole megabytes, or kilobytes below one, rounded down. */
	private static String roughly(long bytes) {
		return bytes >= 1024 * 1024 ? (bytes >> 20) + "MB" : Math.max(1, bytes >> 10) + "KB";
	}

	private static String format(Duration duration) {
		return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
	}

	/** A virtual server's request that needs a session came without {@code Mcp-Session-Id}. */
	public static RelayFailure sessionRequired(String server) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "session_required", server,
				"This endpoint composes several MCP servers and needs a session: send initialize first, then its "
						+ "Mcp-Session-Id with every request.");
	}

	/** A JSON-RPC batch sent to a virtual server. */
	public static RelayFailure batchToVirtualServer(String server) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "batch_not_supported", server,
				"This endpoint composes several MCP servers and takes one JSON-RPC message per request, not a batch.");
	}

	/**
	 * A client's answer to a server request, or its cancellation of one, under an id the relay never gave in this
	 * session.
	 */
	public static RelayFailure unknownServerRequest(String server) {
		return new RelayFailure(HttpStatus.BAD_REQUEST, JsonRpcErrorCodes.INVALID_REQUEST, "unknown_request_id", server,
				"This id is not one this endpoint gave a server request in this session.");
	}

	/** No member of a virtual server could be joined by {@code initialize}. */
	public static RelayFailure noMemberAvailable(String server) {
		return new RelayFailure(HttpStatus.BAD_GATEWAY, JsonRpcErrorCodes.INTERNAL_ERROR, "no_member_available", server,
				"None of the MCP servers behind this endpoint could be initialized; try again shortly.");
	}

	/** A virtual server whose members this caller may use none of (security mode none cannot get here). */
	public static RelayFailure noUsableMember(String server) {
		return new RelayFailure(HttpStatus.FORBIDDEN, JsonRpcErrorCodes.INVALID_REQUEST, "server_not_allowed", server,
				"This caller may not use any MCP server behind this endpoint.");
	}

	/**
	 * No access token for the upstream: its authorization server refused (502) or could not be reached in time (503).
	 * The message names the server, never a secret or a token.
	 */
	public static RelayFailure upstreamAuth(String server, dev.mcprelay.upstream.UpstreamAuthException failure) {
		return new RelayFailure(failure.refused() ? HttpStatus.BAD_GATEWAY : HttpStatus.SERVICE_UNAVAILABLE,
				JsonRpcErrorCodes.INTERNAL_ERROR, "upstream_auth", server, failure.getMessage());
	}

}
