package dev.mcprelay.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.springframework.util.unit.DataSize;

import dev.mcprelay.api.UpstreamHeaders;
import dev.mcprelay.jsonrpc.ProtocolVersions;

/**
 * Checks one server of {@code mcp-relay.servers} for {@link RelayPropertiesValidator}: its id, URL, authorization and
 * headers, timeouts, body cap, tool lists (and the age of the tool definitions policies decide from), injected
 * arguments and pinned protocol versions. Each problem is named by its property path with what to write instead;
 * values that may be secrets ({@code authorization}, header {@code value}s, URL queries) are never quoted.
 */
final class ServerPropertiesValidator {

	private static final Pattern SERVER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._~-]*");

	private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

	private static final Pattern TOOL_PATTERN = Pattern.compile("[^\\s\\p{Cntrl}]+");

	private ServerPropertiesValidator() {
	}

	/**
	 * Every problem of the server {@code id} ({@code server} bound at {@code path}, {@code null} when it has no
	 * settings at all), added to {@code problems}; {@code mode} is the security mode, which decides whether a caller's
	 * claims exist to copy.
	 */
	static void validate(String path, String id, ServerProperties server, SecurityMode mode,
			List<ConfigurationProblem> problems) {
		if (!SERVER_ID.matcher(id).matches()) {
			problems.add(new ConfigurationProblem(path, "the server id '" + id + "' cannot be a URL path segment",
					"Use letters, digits, '.', '_', '~' and '-' only, starting with a letter or digit, e.g. github"));
		}
		if (server == null) {
			problems.add(new ConfigurationProblem(path + ".url", "is missing",
					"Write the upstream's absolute http(s) URL, e.g. https://mcp.example.com/mcp"));
			return;
		}
		validateUrl(path + ".url", server.url(), problems);
		if (server.oauth2() != null) {
			UpstreamOAuth2PropertiesValidator.validate(path, server, mode, problems);
		}
		if (server.authorization() != null && server.authorization().isBlank()) {
			problems.add(new ConfigurationProblem(path + ".authorization",
					"is blank (an environment variable that is not set?)",
					"Set it to the full header value, e.g. \"Bearer ${TOKEN}\", or remove the property"));
		}
		requireOneLine(path + ".authorization", server.authorization(), problems);
		for (int i = 0; i < server.headers().size(); i++) {
			validateHeader(path + ".headers[" + i + "]", server.headers().get(i), mode, problems);
			requireOneLine(path + ".headers[" + i + "].value", server.headers().get(i).value(), problems);
		}
		if (!server.allowedScopes().isEmpty() && mode != SecurityMode.JWT) {
			problems.add(new ConfigurationProblem(path + ".allowed-scopes",
					"applies to callers with JWTs, and mcp-relay.security.mode is not jwt",
					"Remove it, or set mcp-relay.security.mode: jwt"));
		}
		TimeoutProperties timeouts = server.timeouts();
		PositiveDurations.require(path + ".timeouts.non-streaming", timeouts.nonStreaming(), "60s", problems);
		PositiveDurations.require(path + ".timeouts.streaming-idle", timeouts.streamingIdle(), "60s", problems);
		PositiveDurations.require(path + ".timeouts.client-write", timeouts.clientWrite(), "30s", problems);
		DataSize max = server.maxBufferedBody();
		if (max == null || max.toBytes() <= 0 || max.toBytes() > Integer.MAX_VALUE - 8) {
			problems.add(new ConfigurationProblem(path + ".max-buffered-body",
					"must be between 1B and 2047MB but is " + max, "Write a size such as 50MB"));
		}
		ToolsProperties tools = server.tools();
		validateToolPatterns(path + ".tools.allow", tools.allow(), problems);
		validateToolPatterns(path + ".tools.deny", tools.deny(), problems);
		PositiveDurations.require(path + ".tools.annotations-max-age", tools.annotationsMaxAge(),
				ToolsProperties.DEFAULT_ANNOTATIONS_MAX_AGE, problems);
		ArgumentsProperties arguments = server.arguments();
		if (!arguments.reservedPrefix().isEmpty() && !TOOL_PATTERN.matcher(arguments.reservedPrefix()).matches()) {
			problems.add(new ConfigurationProblem(path + ".arguments.reserved-prefix",
					"holds whitespace or a control character", "Write a prefix such as _, or \"\" to turn it off"));
		}
		for (int i = 0; i < arguments.inject().size(); i++) {
			validateInjection(path + ".arguments.inject[" + i + "]", arguments.inject().get(i), mode, problems);
		}
		validateProtocolVersions(path + ".protocol-versions", server, problems);
	}

	/**
	 * Pinned protocol versions ({@code servers.<id>.protocol-versions}): each one the relay knows, and none for a legacy
	 * HTTP+SSE server, which speaks 2024-11-05 and is bridged by its transport.
	 */
	private static void validateProtocolVersions(String path, ServerProperties server,
			List<ConfigurationProblem> problems) {
		if (!server.protocolVersions().isEmpty() && server.transport() == UpstreamTransportKind.SSE) {
			problems.add(new ConfigurationProblem(path, "applies to a Streamable HTTP server, and this one has "
					+ "transport: sse (a legacy HTTP+SSE server, which speaks 2024-11-05)", "Remove it"));
			return;
		}
		for (int i = 0; i < server.protocolVersions().size(); i++) {
			String version = server.protocolVersions().get(i);
			if (!ProtocolVersions.isKnown(version)) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]",
						"'" + (version == null ? "" : version) + "' is not an MCP protocol version the relay knows",
						"Write one of " + String.join(", ", ProtocolVersions.KNOWN) + ", or remove it to let the relay "
								+ "learn the server's versions from its answers"));
			}
		}
	}

	private static void validateInjection(String path, InjectedArgumentProperties injection, SecurityMode mode,
			List<ConfigurationProblem> problems) {
		if (injection.name() == null || injection.name().isBlank() || !TOOL_PATTERN.matcher(injection.name()).matches()) {
			problems.add(new ConfigurationProblem(path + ".name", "is blank or holds whitespace",
					"Write the argument's name, e.g. _tenant"));
		}
		int sources = (injection.value() != null ? 1 : 0) + (injection.fromRequestHeader() != null ? 1 : 0)
				+ (injection.fromCallerClaim() != null ? 1 : 0);
		if (sources != 1) {
			problems.add(new ConfigurationProblem(path, sources == 0 ? "has no value, from-request-header or from-caller-claim"
					: "has more than one of value, from-request-header and from-caller-claim",
					"Keep exactly one: value for a static value, from-request-header to copy an inbound header, "
							+ "from-caller-claim to copy a claim of the authenticated caller"));
		}
		else if (injection.fromRequestHeader() != null && !HEADER_NAME.matcher(injection.fromRequestHeader()).matches()) {
			problems.add(new ConfigurationProblem(path + ".from-request-header",
					"'" + injection.fromRequestHeader() + "' is not a valid header name", "Write the inbound header's name, e.g. X-Tenant"));
		}
		else if (injection.fromCallerClaim() != null) {
			requireCallers(path + ".from-caller-claim", injection.fromCallerClaim(), mode, problems);
		}
		validateToolPatterns(path + ".tools", injection.tools(), problems);
	}

	private static void validateToolPatterns(String path, List<String> patterns, List<ConfigurationProblem> problems) {
		for (int i = 0; i < patterns.size(); i++) {
			String pattern = patterns.get(i);
			if (pattern == null || pattern.isBlank()) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]", "is blank",
						"Write a tool name, or a glob with * such as github_*"));
			}
			else if (!TOOL_PATTERN.matcher(pattern).matches()) {
				problems.add(new ConfigurationProblem(path + "[" + i + "]",
						"'" + pattern + "' holds whitespace or a control character, which no tool name has",
						"Write a tool name, or a glob with * such as github_*"));
			}
		}
	}

	static void validateUrl(String path, String url, List<ConfigurationProblem> problems) {
		String fix = "Write the upstream's absolute http(s) URL, e.g. https://mcp.example.com/mcp";
		if (url == null || url.isBlank()) {
			problems.add(new ConfigurationProblem(path, "is missing", fix));
			return;
		}
		if (UnresolvedVariables.holdsVariable(url)) {
			return; // reported by UnresolvedVariables, by the variable's name
		}
		URI uri;
		try {
			uri = new URI(url);
		}
		catch (URISyntaxException ex) {
			problems.add(new ConfigurationProblem(path, "is not a valid URL (" + ex.getReason() + ")", fix));
			return;
		}
		String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
		if (!uri.isAbsolute()) {
			problems.add(new ConfigurationProblem(path, "is a relative URL", fix));
		}
		else if (!"http".equals(scheme) && !"https".equals(scheme)) {
			problems.add(new ConfigurationProblem(path, "has the scheme '" + scheme + "', not http or https", fix));
		}
		else if (uri.getHost() == null) {
			problems.add(new ConfigurationProblem(path, "has no host", fix));
		}
		else if (uri.getFragment() != null) {
			problems.add(new ConfigurationProblem(path, "has a #fragment, which HTTP never sends", "Remove the fragment"));
		}
	}

	private static void validateHeader(String path, HeaderProperties header, SecurityMode mode,
			List<ConfigurationProblem> problems) {
		if (header.name() == null || header.name().isBlank()) {
			problems.add(new ConfigurationProblem(path + ".name", "is blank", "Write the header name, e.g. X-Api-Key"));
		}
		else if (!HEADER_NAME.matcher(header.name()).matches()) {
			problems.add(new ConfigurationProblem(path + ".name", "'" + header.name() + "' is not a valid header name",
					"Use letters, digits and '-', e.g. X-Api-Key"));
		}
		else if (UpstreamHeaders.isManaged(header.name())) {
			problems.add(new ConfigurationProblem(path + ".name", "'" + header.name() + "' is managed by the relay",
					"Remove this header; the relay passes it through or computes it itself"));
		}
		boolean hasValue = header.value() != null;
		boolean hasSource = header.fromRequestHeader() != null;
		int sources = (hasValue ? 1 : 0) + (hasSource ? 1 : 0) + (header.fromCallerClaim() != null ? 1 : 0);
		if (sources > 1) {
			problems.add(new ConfigurationProblem(path, "has more than one of value, from-request-header and from-caller-claim",
					"Keep exactly one: value for a static value, from-request-header to copy an inbound header, "
							+ "from-caller-claim to copy a claim of the authenticated caller"));
		}
		else if (sources == 0) {
			problems.add(new ConfigurationProblem(path, "has none of value, from-request-header and from-caller-claim",
					"Add value: ${ENV_VAR} for a static value, or from-request-header: X-Name to copy an inbound header"));
		}
		else if (header.fromCallerClaim() != null) {
			requireCallers(path + ".from-caller-claim", header.fromCallerClaim(), mode, problems);
		}
		else if (hasSource && !HEADER_NAME.matcher(header.fromRequestHeader()).matches()) {
			problems.add(new ConfigurationProblem(path + ".from-request-header",
					"'" + header.fromRequestHeader() + "' is not a valid header name", "Write the inbound header's name, e.g. X-Tenant"));
		}
		else if (hasValue && header.required() && header.value().isBlank()) {
			problems.add(new ConfigurationProblem(path + ".value", "is required but blank (an environment variable that is not set?)",
					"Set the variable it refers to, or give a non-blank value"));
		}
	}

	/**
	 * A header's value, once its variables resolved, is one line of visible text: a CR, LF or other control character
	 * (a Secret's file with a trailing newline) would start the relay and fail each request to the upstream with 502.
	 * Never prints the value.
	 */
	private static void requireOneLine(String path, String value, List<ConfigurationProblem> problems) {
		if (value != null && value.chars().anyMatch(c -> (c < 0x20 && c != '\t') || c == 0x7F)) {
			problems.add(new ConfigurationProblem(path, "holds a line break or another control character once its "
					+ "variables are resolved (a secret's file with a trailing newline?), which no header value may",
					"Remove it from the value or the variable it refers to (e.g. printf, not echo, when writing the "
							+ "secret; or kubectl create secret --from-literal)"));
		}
	}

	/** A claim of the caller exists only when callers are authenticated. */
	private static void requireCallers(String path, String claim, SecurityMode mode, List<ConfigurationProblem> problems) {
		if (claim.isBlank()) {
			problems.add(new ConfigurationProblem(path, "is blank", "Write the claim's name, e.g. tenant"));
		}
		else if (mode == SecurityMode.NONE) {
			problems.add(new ConfigurationProblem(path, "needs authenticated callers, and mcp-relay.security.mode is none",
					"Set mcp-relay.security.mode to api-key or jwt, or use value or from-request-header"));
		}
	}

}
