package dev.mcprelay.security;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.authorization.ReactiveAuthorizationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.server.authorization.AuthorizationContext;
import org.springframework.web.server.ServerWebExchange;

import dev.mcprelay.api.Caller;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.route.VirtualMembers;
import dev.mcprelay.virtual.VirtualServer;
import dev.mcprelay.virtual.VirtualServers;
import reactor.core.publisher.Mono;

/**
 * Decides whether an authenticated caller may use what its request asks for, after authentication, on exactly the
 * server the request will reach (the request's one routing decision, {@link McpRouting}), for the MCP paths on
 * Reactor Netty's route ({@link FrontDoor}) and for Spring Security's filter chain on every other path: an API key
 * must open the server the path names ({@code servers}, or {@code *}); a token must carry every {@code required-scopes} entry and, for a server with {@code allowed-scopes}, at least one of them, each as the request's
 * configuration snapshot says.
 * Paths that name no server (the actuator's prometheus endpoint) need an authenticated caller and, for tokens, the
 * required scopes. A request without a caller is refused, to be answered 401; a caller refused is answered 403
 * with its {@link AccessRefusal}. The authenticated caller is recorded for the relay, its interceptors and the access
 * log, refused or not.
 *
 * <p>A caller that may not use a server learns nothing about it: a restricted key gets the same 403 for a server
 * that exists and for one that does not.
 */
final class ServerAccess implements ReactiveAuthorizationManager<AuthorizationContext> {

	private static final AuthorizationDecision GRANTED = new AuthorizationDecision(true);

	private static final AuthorizationDecision DENIED = new AuthorizationDecision(false);

	private final UpstreamRegistry upstreams;

	private final McpRouting routing;

	private final VirtualServers virtualServers;

	private final Supplier<ConfigurationSnapshot> current;

	private final KeyServers keyServers;

	/**
	 * @param current the snapshot a request on Spring Security's chain runs on (those paths carry none of their own)
	 */
	ServerAccess(UpstreamRegistry upstreams, McpRouting routing, VirtualServers virtualServers, KeyServers keyServers,
			Supplier<ConfigurationSnapshot> current) {
		this.upstreams = upstreams;
		this.keyServers = keyServers;
		this.current = current;
		this.virtualServers = virtualServers;
		this.routing = routing;
	}

	/**
	 * Grants or refuses a request in Spring Security's filter chain (the paths not on Reactor Netty's route: the
	 * actuator, which names no server); a refusal of an authenticated caller leaves its {@link AccessRefusal} on the exchange
	 * ({@link AccessRefusal#ATTRIBUTE}) for the answer to say why, since Spring Security passes on only the verdict.
	 */
	@Override
	public Mono<AuthorizationResult> authorize(Mono<Authentication> authentication, AuthorizationContext context) {
		ServerWebExchange exchange = context.getExchange();
		return authentication.filter(Authentication::isAuthenticated).map(accepted -> {
			try {
				decide(accepted, callerOf(accepted), routing.routeOf(exchange), current.get());
				return (AuthorizationResult) GRANTED;
			}
			catch (AccessRefusal refusal) {
				exchange.getAttributes().put(AccessRefusal.ATTRIBUTE, refusal);
				return DENIED;
			}
		}).defaultIfEmpty(DENIED);
	}

	/**
	 * Decides whether {@code caller}, authenticated as {@code authentication}, may use what {@code route} names, as
	 * {@code snapshot} (the request's) configures it.
	 * @return the members of a virtual server the caller may use, for a virtual server's route; else {@code null}
	 * @throws AccessRefusal when the caller may not
	 */
	VirtualMembers decide(Authentication authentication, Caller caller, McpRoute route, ConfigurationSnapshot snapshot) {
		if (route.kind() == McpRoute.Kind.VIRTUAL) {
			return decideMembers(authentication, caller, route.virtualServer(), snapshot);
		}
		String server = route.server();
		Upstream upstream = upstreams.in(snapshot).find(server);
		if (authentication instanceof ApiKeyAuthentication key && route.isEndpoint()
				&& !opens(key, snapshot, route.target() != null ? route.target() : "")) {
			throw new AccessRefusal("server_not_allowed", server, null,
					"This API key may not use this MCP server; an operator can add it to the key's servers.");
		}
		if (caller.kind() == Caller.Kind.JWT) {
			List<String> requiredScopes = requiredScopes(snapshot);
			if (!caller.scopes().containsAll(requiredScopes)) {
				throw new AccessRefusal("insufficient_scope", server, String.join(" ", requiredScopes),
						"The token lacks a required scope: " + String.join(", ", requiredScopes) + ".");
			}
			if (upstream != null && !upstream.admits(caller)) {
				List<String> allowed = upstream.properties().allowedScopes();
				throw new AccessRefusal("insufficient_scope", server, String.join(" ", allowed),
						"The token carries none of the scopes this MCP server needs: one of " + String.join(", ", allowed)
								+ ".");
			}
		}
		return null;
	}

	/**
	 * For a virtual server: the members this caller may use ({@link VirtualMembers}). A key that
	 * names the virtual server (or {@code *}) opens all its members, another key the members it names; a token must
	 * carry the required scopes, and opens each member whose {@code allowed-scopes} it meets. A caller that may use
	 * no member is refused as for a server it may not use.
	 */
	private VirtualMembers decideMembers(Authentication authentication, Caller caller, String virtualId,
			ConfigurationSnapshot snapshot) {
		VirtualServer virtual = virtualServers.find(snapshot, virtualId);
		if (virtual == null) {
			// a later snapshot a reload removed it from (WithdrawnAccess reviews the request against it): its removal
			// ends what it served (server_removed), not the caller's access
			return new VirtualMembers(virtualId, List.of());
		}
		List<String> usable = new ArrayList<>();
		if (authentication instanceof ApiKeyAuthentication key) {
			for (String member : virtual.members()) {
				if (opens(key, snapshot, virtualId) || opens(key, snapshot, member)) {
					usable.add(member);
				}
			}
			if (usable.isEmpty()) {
				throw new AccessRefusal("server_not_allowed", virtualId, null,
						"This API key may not use this MCP server; an operator can add it to the key's servers.");
			}
		}
		else {
			List<String> requiredScopes = requiredScopes(snapshot);
			if (!caller.scopes().containsAll(requiredScopes)) {
				throw new AccessRefusal("insufficient_scope", virtualId, String.join(" ", requiredScopes),
						"The token lacks a required scope: " + String.join(", ", requiredScopes) + ".");
			}
			for (String member : virtual.members()) {
				Upstream upstream = upstreams.in(snapshot).find(member);
				if (upstream == null || upstream.admits(caller)) {
					usable.add(member);
				}
			}
			if (usable.isEmpty()) {
				throw new AccessRefusal("insufficient_scope", virtualId, null,
						"The token carries none of the scopes the servers behind this endpoint need.");
			}
		}
		return new VirtualMembers(virtualId, usable);
	}

	/** The members of virtual server {@code virtualId} under {@code snapshot}; empty when it has none there. */
	List<String> membersOf(String virtualId, ConfigurationSnapshot snapshot) {
		VirtualServer virtual = virtualServers.find(snapshot, virtualId);
		return virtual == null ? List.of() : virtual.members();
	}

	/** The scopes every token must carry under {@code snapshot} ({@code jwt.required-scopes}). */
	private static List<String> requiredScopes(ConfigurationSnapshot snapshot) {
		return snapshot.properties().security().jwt().requiredScopes();
	}

	/** Whether {@code key} opens server (or virtual server) {@code id} under {@code snapshot}. */
	private boolean opens(ApiKeyAuthentication key, ConfigurationSnapshot snapshot, String id) {
		return keyServers.opens(snapshot, key.getPrincipal().id(), id);
	}

	/** The caller an accepted authentication stands for. */
	static Caller callerOf(Authentication authentication) {
		if (authentication instanceof ApiKeyAuthentication key) {
			return key.getPrincipal();
		}
		if (authentication instanceof TokenAuthentication token) {
			return token.caller();
		}
		throw new IllegalStateException("Unexpected authentication " + authentication.getClass().getName());
	}

}
