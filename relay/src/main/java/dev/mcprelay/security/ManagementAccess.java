package dev.mcprelay.security;

import java.util.List;
import java.util.function.Supplier;

import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.authorization.ReactiveAuthorizationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.server.authorization.AuthorizationContext;

import dev.mcprelay.api.Caller;
import reactor.core.publisher.Mono;

/**
 * Who may read the relay's management endpoints on the relay's own port, in {@code api-key} and {@code jwt} mode: every
 * exposed actuator endpoint but health (the probes need no credential), {@code /actuator/prometheus} first. Only a
 * caller an operator marked for it: an API key with {@code management: true}, or a token carrying one of
 * {@code jwt.management-scopes}. An MCP caller's key or token alone reads nothing there: the metrics name every server
 * and client and their traffic, which a caller limited to some servers must not learn, as it learns nothing of them
 * from the MCP paths. Refused callers get 403 {@code management_not_allowed}.
 *
 * <p>Where the actuator is served on a port of its own ({@code management.server.port}, bound where only the cluster
 * reaches it, as the Kubernetes manifests do), this chain does not run there, and scraping needs no credential.
 */
final class ManagementAccess implements ReactiveAuthorizationManager<AuthorizationContext> {

	private static final AuthorizationDecision DENIED = new AuthorizationDecision(false);

	private static final AuthorizationDecision GRANTED = new AuthorizationDecision(true);

	private final Supplier<List<String>> managementScopes;

	/**
	 * @param managementScopes the scopes of which a token needs one ({@code jwt.management-scopes}), as the current
	 * configuration snapshot says
	 */
	ManagementAccess(Supplier<List<String>> managementScopes) {
		this.managementScopes = managementScopes;
	}

	@Override
	public Mono<AuthorizationResult> authorize(Mono<Authentication> authentication, AuthorizationContext context) {
		return authentication.filter(Authentication::isAuthenticated).map(accepted -> {
			if (allows(accepted)) {
				return (AuthorizationResult) GRANTED;
			}
			context.getExchange().getAttributes().put(AccessRefusal.ATTRIBUTE, refusal(managementScopes.get()));
			return DENIED;
		}).defaultIfEmpty(DENIED);
	}

	/** Whether {@code accepted} may read the management endpoints. */
	boolean allows(Authentication accepted) {
		if (accepted instanceof ApiKeyAuthentication key) {
			return key.management();
		}
		Caller caller = ServerAccess.callerOf(accepted);
		return caller.kind() == Caller.Kind.JWT && managementScopes.get().stream().anyMatch(caller.scopes()::contains);
	}

	private static AccessRefusal refusal(List<String> managementScopes) {
		return new AccessRefusal("management_not_allowed", null,
				managementScopes.isEmpty() ? null : String.join(" ", managementScopes),
				"This caller may not read the relay's management endpoints; an operator can allow its API key "
						+ "(management: true) or its token's scope (mcp-relay.security.jwt.management-scopes).");
	}

}
