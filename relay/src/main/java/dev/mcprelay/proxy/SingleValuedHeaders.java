package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.http.HttpHeaders;

import dev.mcprelay.config.InjectedArgumentProperties;
import dev.mcprelay.config.ServerProperties;

/**
 * The request headers that carry one value, which the relay reads and its upstream reads again:
 * {@code Mcp-Session-Id} (the session the relay orders, binds and bridges by), {@code MCP-Protocol-Version} (what
 * interceptors, traces and virtual servers take the client to speak) and {@code Content-Type} (how the body is read),
 * with the mirrored {@code Mcp-Method} and {@code Mcp-Name} ({@link MirroredHeaders}).
 *
 * <p>A client that repeats one of them with another value says two things at once: the relay would act on one line
 * while a server or gateway behind it may act on another (HTTP lets a recipient take the first, the last, or join
 * them). Such a request is refused before anything reads it ({@link #requireOneValue}), as a careful gateway does (on a
 * virtual server's endpoint too); lines that
 * repeat the same value say one thing and go upstream as one line ({@link HeaderRules}).
 *
 * <p>So are, for one server, the request headers whose value its {@code arguments.inject} entries inject
 * ({@code from-request-header}): the relay sets the argument from one line, and a request that repeats the header with
 * another value would have the relay pick one of two tenants ({@link #requireOneValue(HttpHeaders, ServerProperties,
 * String)}); on a virtual server, the member's exchange, which carries the client's lines, is refused so.
 */
public final class SingleValuedHeaders {

	/** Every name whose repeated lines go on as one; the relay refuses conflicting lines of each. */
	static final HeaderNameSet NAMES = HeaderNameSet.of(List.of(HeaderRules.MCP_SESSION_ID, "MCP-Protocol-Version",
			HttpHeaders.CONTENT_TYPE, MirroredHeaders.MCP_METHOD, MirroredHeaders.MCP_NAME));

	/** Those checked here; the mirrored ones are checked against the body, line by line ({@link MirroredHeaders}). */
	private static final List<String> CHECKED = List.of(HeaderRules.MCP_SESSION_ID, "MCP-Protocol-Version",
			HttpHeaders.CONTENT_TYPE);

	private SingleValuedHeaders() {
	}

	/**
	 * Checks that each single-valued header of a client request says one thing.
	 *
	 * @throws RelayFailure (400, {@code conflicting_header}) naming the first header whose lines differ
	 */
	public static void requireOneValue(HttpHeaders headers, String server) {
		for (String name : CHECKED) {
			requireOneValue(headers, name, server);
		}
	}

	/**
	 * {@link #requireOneValue(HttpHeaders, String)}, and the headers {@code properties}' injected arguments are taken
	 * from.
	 *
	 * @throws RelayFailure (400, {@code conflicting_header}) naming the first header whose lines differ
	 */
	static void requireOneValue(HttpHeaders headers, ServerProperties properties, String server) {
		requireOneValue(headers, server);
		for (InjectedArgumentProperties injection : properties.arguments().inject()) {
			if (injection.fromRequestHeader() != null) {
				requireOneListValue(headers, injection.fromRequestHeader(), server);
			}
		}
	}

	/**
	 * As {@link #requireOneValue(HttpHeaders, String, String)}, reading each line as the comma-separated list it is to
	 * HTTP (RFC 9110 section 5.3: {@code X: a, b} is {@code X: a} and {@code X: b}), so that one line holding two values
	 * cannot inject the first of them either.
	 */
	private static void requireOneListValue(HttpHeaders headers, String name, String server) {
		List<String> values = headers.get(name);
		if (values != null && values.stream()
			.flatMap(line -> java.util.Arrays.stream(line.split(",", -1)))
			.map(String::strip)
			.distinct()
			.count() > 1) {
			throw RelayFailures.conflictingHeader(server, name);
		}
	}

	private static void requireOneValue(HttpHeaders headers, String name, String server) {
		List<String> values = headers.get(name);
		if (values != null && values.size() > 1 && values.stream().distinct().count() > 1) {
			throw RelayFailures.conflictingHeader(server, name);
		}
	}

}
