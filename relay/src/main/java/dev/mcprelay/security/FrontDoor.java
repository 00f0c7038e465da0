package dev.mcprelay.security;

import java.net.URI;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.AuthenticationCredentialsNotFoundException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.web.util.ForwardedHeaderUtils;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.NettyExchange;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import io.netty.util.Attribute;
import reactor.core.publisher.Mono;

/**
 * The front door of the MCP paths (DESIGN section 8) on Reactor Netty's route ({@code web.McpRoutes}), once per
 * request, after CORS and before the relay, in {@code api-key} and {@code jwt} mode; in mode {@code none} it lets every
 * request through. The steps, and the parts, are those of Spring Security's filter chain on every other path, so that
 * both answer alike:
 * <ol>
 * <li>the one credential the request presents ({@link SingleCredential} over the mode's {@link CredentialReader});</li>
 * <li>authenticated by the mode's {@link ReactiveAuthenticationManager} of the request's configuration snapshot
 * ({@link CallerAuthentication}: {@link ApiKeys}, or Spring Security's JWT manager over {@link JwtDecoding}'s decoder,
 * its accepted tokens kept by {@link ValidatedTokens}), unless the request's connection presented the very same token
 * a moment before to the same manager ({@link ConnectionCredential});</li>
 * <li>the caller recorded on the exchange, refused or not, and {@link ServerAccess}'s decision on the request's one
 * routing decision: for a virtual server, the members the caller may use are recorded too;</li>
 * <li>the signal on which the request's open streams end when a later reload withdraws that access
 * ({@link WithdrawnAccess}) recorded on the exchange, and the check of that access against the configuration current
 * once its body is read and again at its turn ({@code RelayExchange.accessWithdrawnNow()}, and per member of a
 * virtual server {@code accessWithdrawnNowFrom}).</li>
 * </ol>
 * A refusal is written by {@link FrontDoorAnswers} (401, 403, 503 with a JSON-RPC error; nothing reaches the relay).
 * A failure that is no refusal (a bug) fails the returned {@code Mono}, for the route to answer as an internal error.
 *
 * <p>What it may change: the exchange's caller and virtual members, its record (a refusal's reason) and, when it
 * refuses, its response. It never reads the body. It runs on the event loop and never blocks: an API key is checked in
 * memory, a token against keys fetched without blocking ({@link JwtDecoding}) and kept once accepted
 * ({@link ValidatedTokens}).
 */
public final class FrontDoor {

	private static final Logger log = LoggerFactory.getLogger(FrontDoor.class);

	private static final FrontDoor OPEN = new FrontDoor(null, null, null, null, null, null, false);

	private final CredentialReader credentials;

	private final CallerAuthentication callers;

	/** The snapshot of a request on Spring Security's chain, which carries none of its own. */
	private final Supplier<ConfigurationSnapshot> current;

	private final WithdrawnAccess withdrawn;

	private final ServerAccess access;

	private final ManagementAccess management;

	private final FrontDoorAnswers answers;

	private final boolean adaptToForwardedHeaders;

	/**
	 * @param adaptToForwardedHeaders whether the address a challenge names is adapted to {@code Forwarded} and
	 * {@code X-Forwarded-*} headers, as WebFlux adapts its requests with {@code server.forward-headers-strategy:
	 * framework}
	 */
	FrontDoor(CredentialReader credentials, CallerAuthentication callers, Supplier<ConfigurationSnapshot> current,
			ServerAccess access, ManagementAccess management, FrontDoorAnswers answers,
			boolean adaptToForwardedHeaders) {
		this.credentials = credentials;
		this.callers = callers;
		this.current = current;
		this.withdrawn = callers == null ? null : new WithdrawnAccess(callers, access);
		this.access = access;
		this.management = management;
		this.answers = answers;
		this.adaptToForwardedHeaders = adaptToForwardedHeaders;
	}

	/** The front door of security mode {@code none}: no credential is asked for, every request goes on. */
	static FrontDoor open() {
		return OPEN;
	}

	/**
	 * Admits {@code exchange} to {@code relay}, or answers it with a refusal.
	 * @return completes when the relay's handling does, or when the refusal is written
	 */
	public Mono<Void> admit(NettyExchange exchange, Supplier<Mono<Void>> relay) {
		if (credentials == null) {
			return relay.get();
		}
		Authentication presented;
		try {
			presented = credentials.read(exchange.requestHeaderView());
		}
		catch (AuthenticationException failure) {
			return answers.unauthenticated(refused(exchange), failure);
		}
		if (presented == null) {
			return answers.unauthenticated(refused(exchange),
					new AuthenticationCredentialsNotFoundException("No credentials"));
		}
		ReactiveAuthenticationManager authentication = callers.of(exchange.configuration()).authentication();
		String credential = ConnectionCredential.credentialOf(presented);
		Attribute<ConnectionCredential> connection = credential == null ? null
				: exchange.connectionAttribute(ConnectionCredential.KEY);
		ConnectionCredential kept = connection == null ? null : connection.get();
		if (kept != null && kept.checkedBy() == authentication && kept.serves(credential, System.nanoTime())) {
			return authorize(exchange, kept.accepted(), relay);
		}
		return authentication.authenticate(presented)
			.switchIfEmpty(Mono.error(() -> new IllegalStateException(
					"No authentication for " + presented.getClass().getSimpleName())))
			.onErrorResume(AuthenticationException.class,
					failure -> answers.unauthenticated(refused(exchange), failure).then(Mono.<Authentication>empty()))
			.flatMap(accepted -> {
				if (connection != null) {
					exchange.keepOnConnection(ConnectionCredential.ON_CONNECTION,
							ConnectionCredential.of(credential, accepted, authentication, System.nanoTime()));
				}
				return authorize(exchange, accepted, relay);
			});
	}

	private Mono<Void> authorize(NettyExchange exchange, Authentication accepted, Supplier<Mono<Void>> relay) {
		Caller caller = ServerAccess.callerOf(accepted);
		// Known even when refused below: the access log and the client tag say who was refused.
		exchange.caller(caller);
		try {
			VirtualMembers members = access.decide(accepted, caller, exchange.route(), exchange.configuration());
			if (members != null) {
				exchange.virtualMembers(members);
			}
		}
		catch (AccessRefusal refusal) {
			return answers.forbidden(refused(exchange), refusal);
		}
		McpRoute route = exchange.route();
		ConfigurationSnapshot admittedOn = exchange.configuration();
		exchange.accessWithdrawn(withdrawn.of(accepted, caller, route, admittedOn),
				members -> withdrawn.fromAny(accepted, caller, route, admittedOn, members));
		exchange.accessWithdrawnNow(() -> withdrawn.now(accepted, caller, route, admittedOn),
				members -> withdrawn.nowFromAny(accepted, caller, route, admittedOn, members));
		exchange.accessGrantedTo(member -> withdrawn.grantedTo(accepted, caller, route, admittedOn, member));
		exchange.accessUsableNow(member -> withdrawn.usableNow(accepted, caller, route, admittedOn, member));
		return relay.get();
	}

	/** Whether callers present API keys (else tokens): the mode, which no reload changes. */
	boolean byApiKey() {
		return callers.of(current.get()).authentication() instanceof ApiKeys;
	}

	CredentialReader credentials() {
		return credentials;
	}

	/**
	 * The authentication manager of Spring Security's chain: the current snapshot's, for the paths that carry no
	 * snapshot of their own.
	 */
	ReactiveAuthenticationManager authentication() {
		return presented -> callers.of(current.get()).authentication().authenticate(presented);
	}

	ServerAccess access() {
		return access;
	}

	ManagementAccess management() {
		return management;
	}

	FrontDoorAnswers answers() {
		return answers;
	}

	private FrontDoorAnswers.Refused refused(NettyExchange exchange) {
		return new FrontDoorAnswers.Refused(exchange.route(), exchange.record(), exchange.response(),
				() -> ProtectedResourceMetadata.metadataUrl(origin(exchange), exchange.rawPath()));
	}

	/** The origin the client addressed, adapted to forwarded headers as WebFlux would adapt it. */
	private String origin(NettyExchange exchange) {
		String origin = exchange.origin();
		if (!adaptToForwardedHeaders) {
			return origin;
		}
		try {
			return ForwardedHeaderUtils.adaptFromForwardedHeaders(URI.create(origin), exchange.requestHeaderView())
				.replacePath(null)
				.replaceQuery(null)
				.fragment(null)
				.build(true)
				.toUriString();
		}
		catch (RuntimeException malformed) {
			// A forwarded host or scheme a URI cannot hold (build(true) refuses what is not encoded): never quoted.
			log.debug("Forwarded headers not usable, the challenge names the relay's own address: {}",
					malformed.getMessage());
			return origin;
		}
	}

}
