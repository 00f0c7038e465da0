package dev.mcprelay.security;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.util.UriComponentsBuilder;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.config.JwtProperties;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import reactor.core.publisher.Mono;

/**
 * The OAuth 2.0 Protected Resource Metadata (RFC 9728) of each MCP path, served in {@code jwt} mode at
 * {@code /.well-known/oauth-protected-resource} followed by the path ({@code /mcp/{server}}, {@code /{server}/mcp},
 * {@code /mcp}), without credentials: an MCP client that got a 401 reads it to find the authorization server. The
 * document names the {@code resource} exactly as the client addressed it (behind a proxy, with
 * {@code server.forward-headers-strategy} set, as the client sees it), the configured issuer ({@code issuer-uri}, or
 * {@code issuer} beside {@code jwk-set-uri}), the scopes
 * (required ones, and the server's {@code allowed-scopes}) and the header as the only way to send a token. A path
 * naming no configured server gets the same document with the required scopes only, so the metadata tells nobody which
 * servers exist; a path that is no MCP path gets 404.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9728">RFC 9728</a>
 */
final class ProtectedResourceMetadata {

	static final String PREFIX = "/.well-known/oauth-protected-resource";

	private final UpstreamRegistry upstreams;

	private final McpRouting routing;

	private final LiveConfiguration live;

	ProtectedResourceMetadata(UpstreamRegistry upstreams, McpRouting routing, LiveConfiguration live) {
		this.live = live;
		this.upstreams = upstreams;
		this.routing = routing;
	}

	/** The metadata URL of the resource {@code request} addressed. */
	static String metadataUrl(ServerHttpRequest request) {
		return metadataUrl(origin(request), request.getPath().pathWithinApplication().value());
	}

	/**
	 * The metadata URL of the resource at {@code rawPath} on {@code origin} ({@code scheme://host[:port]}, as the
	 * client addressed the relay).
	 */
	static String metadataUrl(String origin, String rawPath) {
		return origin + PREFIX + rawPath;
	}

	Mono<ServerResponse> serve(ServerRequest request) {
		String path = request.path().substring(PREFIX.length());
		ConfigurationSnapshot snapshot = live.current();
		JwtProperties jwt = snapshot.properties().security().jwt();
		McpRoute route = routing.resolve(snapshot, path);
		if (!route.isEndpoint()) {
			return Mono.error(RelayFailures.notFound());
		}
		Upstream upstream = upstreams.in(snapshot).find(route.server());
		Set<String> scopes = new LinkedHashSet<>(jwt.requiredScopes());
		if (upstream != null) {
			scopes.addAll(upstream.properties().allowedScopes());
		}
		Map<String, Object> document = new LinkedHashMap<>();
		document.put("resource", origin(request.exchange().getRequest()) + path);
		if (jwt.expectedIssuer() != null) {
			document.put("authorization_servers", List.of(jwt.expectedIssuer()));
		}
		if (!scopes.isEmpty()) {
			document.put("scopes_supported", new ArrayList<>(scopes));
		}
		document.put("bearer_methods_supported", List.of("header"));
		return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(JsonRpcErrors.toBytes(JsonRpcParser.mapper().valueToTree(document)));
	}

	private static String origin(ServerHttpRequest request) {
		return UriComponentsBuilder.fromUri(request.getURI()).replacePath(null).replaceQuery(null).fragment(null)
			.build()
			.toUriString();
	}

}
