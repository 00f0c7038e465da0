package dev.mcprelay.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.InjectedArgumentProperties;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.http.RelayResponse;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.metrics.RelayOutcome;
import dev.mcprelay.proxy.OriginPolicy;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import reactor.core.publisher.Mono;

/**
 * CORS for browser MCP clients on the MCP paths, for the origins {@link OriginPolicy} allows:
 * <ul>
 * <li>a preflight ({@code OPTIONS} with {@code Access-Control-Request-Method}) from an allowed origin is answered 204
 * with the methods the endpoint takes and the request headers an MCP client sends ({@code Content-Type},
 * {@code Authorization}, {@code Mcp-Session-Id}, {@code MCP-Protocol-Version}, {@code Last-Event-ID},
 * {@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*}, {@code X-Api-Key}, and every {@code from-request-header}
 * of a server's {@code headers} or {@code arguments.inject} in the request's configuration snapshot: a part of each
 * snapshot, so that a server a reload added is reachable from a page at once); from any other origin, or for a foreign host, it is refused with 403 and a JSON-RPC
 * error. Nothing is forwarded either way;</li>
 * <li>every other response to an allowed origin carries {@code Access-Control-Allow-Origin} and exposes
 * {@code Mcp-Session-Id}, {@code MCP-Protocol-Version}, {@code WWW-Authenticate} and {@code X-Request-Id}, so the page
 * can read the session it was given and name the access-log line of a request (which it may send its own
 * {@code X-Request-Id} for: a preflight allows it). A
 * request from an origin not allowed is refused by the relay itself (403, {@code origin_not_allowed}).</li>
 * </ul>
 * A step of {@link McpRoutes} on Reactor Netty's route, before the front door.
 */
@Component
class BrowserAccess implements SnapshotPart<Set<String>> {

	private static final String ALLOWED_METHODS = "GET, POST, DELETE";

	/** What a page may read of an answer: its session, its protocol version, why it was refused, which log line is its. */
	private static final String EXPOSED_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, X-Request-Id";

	private static final String MCP_PARAM_PREFIX = "mcp-param-";

	private static final long MAX_AGE_SECONDS = Duration.ofMinutes(10).toSeconds();

	/** The request headers an MCP client sends, whatever the configuration. */
	private static final List<String> MCP_HEADERS = List.of(HttpHeaders.CONTENT_TYPE, HttpHeaders.ACCEPT,
			HttpHeaders.AUTHORIZATION, "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID", "Mcp-Method",
			"Mcp-Name", "X-Api-Key", "X-Request-Id");

	private final OriginPolicy originPolicy;

	BrowserAccess(OriginPolicy originPolicy) {
		this.originPolicy = originPolicy;
	}

	@Override
	public String partName() {
		return "cors-allowed-headers";
	}

	/**
	 * The request headers a preflight allows under this snapshot: an MCP client's, and each header a server's
	 * {@code headers} or {@code arguments.inject} take {@code from-request-header}, compared without case.
	 */
	@Override
	public Set<String> compile(SnapshotCompilation compilation) {
		Set<String> allowed = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
		allowed.addAll(MCP_HEADERS);
		compilation.properties().servers().values().forEach(server -> {
			if (server != null) {
				server.headers().stream().map(HeaderProperties::fromRequestHeader).filter(name -> name != null)
					.forEach(allowed::add);
				server.arguments().inject().stream().map(InjectedArgumentProperties::fromRequestHeader)
					.filter(name -> name != null).forEach(allowed::add);
			}
		});
		return java.util.Collections.unmodifiableSet(allowed);
	}

	/**
	 * Answers a preflight, or marks the response to an allowed origin's request, then goes on with {@code next}: for a
	 * request on an MCP endpoint path, before the front door and the relay.
	 */
	Mono<Void> handle(RelayExchange exchange, Supplier<Mono<Void>> next) {
		HttpHeaders requested = exchange.requestHeaderView();
		String origin = requested.getOrigin();
		if (origin == null || !exchange.route().isEndpoint()) {
			return next.get();
		}
		if (HttpMethod.OPTIONS.equals(exchange.method()) && requested.containsHeader(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD)) {
			return answerPreflight(exchange, origin);
		}
		if (originPolicy.allows(origin)) {
			RelayResponse response = exchange.response();
			response.beforeCommit(() -> {
				io.netty.handler.codec.http.HttpHeaders headers = response.headers();
				headers.set(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
				headers.set(HttpHeaders.ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED_HEADERS);
				headers.add(HttpHeaders.VARY, HttpHeaders.ORIGIN);
			});
		}
		return next.get();
	}

	private Mono<Void> answerPreflight(RelayExchange exchange, String origin) {
		ExchangeRecord record = exchange.record();
		HttpHeaders requested = exchange.requestHeaderView();
		try {
			originPolicy.check(requested);
		}
		catch (RelayFailure refused) {
			record.failed(false, refused.reason());
			return RelayAnswers.respond(exchange.response(), refused, null);
		}
		HttpMethod method = requested.getAccessControlRequestMethod();
		if (method == null || !(method == HttpMethod.GET || method == HttpMethod.POST || method == HttpMethod.DELETE)) {
			RelayFailure refused = RelayFailures.httpError(HttpStatus.FORBIDDEN);
			record.failed(false, "method_not_allowed");
			return RelayAnswers.respond(exchange.response(), refused, null);
		}
		record.stoppedBy(RelayOutcome.RESPONDED, "cors-preflight");
		RelayResponse response = exchange.response();
		response.status(HttpStatus.NO_CONTENT);
		io.netty.handler.codec.http.HttpHeaders headers = response.headers();
		headers.set(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
		headers.set(HttpHeaders.ACCESS_CONTROL_ALLOW_METHODS, ALLOWED_METHODS);
		List<String> allowed = allowedOf(requested.getAccessControlRequestHeaders(), of(exchange.configuration()));
		if (!allowed.isEmpty()) {
			headers.set(HttpHeaders.ACCESS_CONTROL_ALLOW_HEADERS, String.join(", ", allowed));
		}
		headers.set(HttpHeaders.ACCESS_CONTROL_MAX_AGE, String.valueOf(MAX_AGE_SECONDS));
		headers.add(HttpHeaders.VARY, HttpHeaders.ORIGIN);
		headers.add(HttpHeaders.VARY, HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD);
		headers.add(HttpHeaders.VARY, HttpHeaders.ACCESS_CONTROL_REQUEST_HEADERS);
		return response.complete();
	}

	/** The requested headers an MCP client may send; a header left out makes the browser refuse the request. */
	private static List<String> allowedOf(List<String> requested, Set<String> allowedHeaders) {
		List<String> allowed = new ArrayList<>();
		for (String header : requested) {
			String name = header.trim();
			if (allowedHeaders.contains(name) || name.toLowerCase(Locale.ROOT).startsWith(MCP_PARAM_PREFIX)) {
				allowed.add(name);
			}
		}
		return allowed;
	}

}
