package dev.mcprelay.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.reactive.EndpointRequest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authentication.AuthenticationWebFilter;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.ForwardedHeaderTransformer;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.SecurityProperties;
import dev.mcprelay.demo.DemoMcpServer;
import dev.mcprelay.http.WebFluxResponse;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.virtual.VirtualServers;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * The front door (DESIGN section 8), chosen by {@code mcp-relay.security.mode}: {@link FrontDoor} on Reactor Netty's
 * route for the MCP paths, and a Spring Security filter chain built of the same parts for every other path:
 * <ul>
 * <li>{@code api-key}: {@link ApiKeyCredentials} reads the key, {@link ApiKeys} checks it;</li>
 * <li>{@code jwt}: {@link BearerTokenCredentials} reads the token, Spring Security's JWT authentication manager checks
 * it with {@link JwtDecoding}'s decoder; the RFC 9728 metadata ({@link ProtectedResourceMetadata}) is served;</li>
 * <li>{@code none}: Spring Security is not set up at all (no filter costs a request anything), and the relay warns at
 * start-up unless it listens on loopback only.</li>
 * </ul>
 * In both secured modes every path needs an authenticated caller that {@link ServerAccess} lets through (the management
 * endpoints one that {@link ManagementAccess} lets through), except the health probes, the RFC 9728 metadata, CORS preflights (answered before the front door) and, under the {@code demo}
 * profile, the demo upstream. Refusals are written by {@link FrontDoorAnswers}. The chain keeps no session, sets no
 * response headers of its own and has no CSRF, form or basic login: callers are programs, and every request carries
 * its credentials.
 *
 * <p>It depends on {@link UpstreamRegistry}, so a configuration without a mode fails start-up with the registry's
 * list of problems before any of this is built.
 */
@Configuration(proxyBeanMethods = false)
class FrontDoorConfiguration {

	/**
	 * Spring Security, in {@code api-key} and {@code jwt} mode only, for the paths off Reactor Netty's route (and with
	 * no mode, so that start-up reaches the configuration check and fails there with its message): in mode
	 * {@code none} no security filter runs at all.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(SecuredMode.class)
	@EnableWebFluxSecurity
	static class Secured {

		/**
		 * No Spring Security observations: they time each of its filters, every authentication and every
		 * authorization, on every request, which halved a secured relay's throughput; the relay's own meters count
		 * what the front door refuses ({@code mcp.relay.auth.failures}) and whom it served ({@code client} tag).
		 */
		@Bean
		static SecurityObservationSettings noSecurityObservations() {
			return SecurityObservationSettings.noObservations();
		}

		/**
		 * Spring Security's firewall refuses requests whose path or headers hold forms it does not accept (an encoded
		 * {@code %} or {@code /}, {@code ;} parameters, control characters, …) before any other of its filters: they
		 * get the relay's JSON-RPC error (400, {@code request_rejected}) instead of an empty body. MCP paths in such
		 * forms never reach it: they are Reactor Netty's route's, refused there as ambiguous paths.
		 */
		@Bean
		static ServerExchangeRejectedHandler jsonRpcRejection() {
			return (exchange, rejected) -> {
				log.debug("{} refused by the firewall: {}", exchange.getRequest().getMethod(), rejected.getMessage());
				RelayFailure failure = RelayFailures.requestRejected();
				ExchangeRecord.begin(exchange.getRequest().getMethod()).failed(false, failure.reason());
				return RelayAnswers.respond(WebFluxResponse.of(exchange.getResponse()), failure, null);
			};
		}

		@Bean
		SecurityWebFilterChain frontDoorChain(ServerHttpSecurity http, FrontDoor frontDoor, Environment environment,
				ApplicationContext context) {
			SeparateManagementPort managementPort = new SeparateManagementPort(environment, context);
			if (managementPort.separate()) {
				log.info("The management endpoints are served on their own port (management.server.port) without "
						+ "credentials: let only your monitoring reach it (a NetworkPolicy, a loopback address)");
				if (environment.getProperty("management.server.address") == null
						&& environment.getProperty("server.address") != null) {
					log.warn("The management port listens on every address, without credentials, while the relay "
							+ "listens on {} only: set management.server.address (e.g. to the same address)",
							environment.getProperty("server.address"));
				}
			}
			return FrontDoorConfiguration.frontDoorChain(http, frontDoor, environment, managementPort);
		}

	}

	/** Matches unless {@code mcp-relay.security.mode} is {@code none}. */
	static final class SecuredMode implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			SecurityMode mode = Binder.get(context.getEnvironment())
				.bind("mcp-relay.security.mode", SecurityMode.class)
				.orElse(null);
			return mode != SecurityMode.NONE;
		}

	}

	/** In mode {@code none}: the warning when others can reach the port. */
	@Bean
	SmartInitializingSingleton openRelayWarning(RelayProperties properties, UpstreamRegistry upstreams,
			Environment environment) {
		return () -> {
			if (properties.security().mode() == SecurityMode.NONE) {
				warnIfReachable(environment);
			}
		};
	}

	private static final Logger log = LoggerFactory.getLogger(FrontDoorConfiguration.class);

	/**
	 * The front door of the MCP paths, on Reactor Netty's route, and the parts Spring Security's chain shares for every
	 * other path: one credential reader, the authentication manager of each configuration snapshot
	 * ({@link CallerAuthentication}: the API keys, or a JWT decoder and its cache of accepted tokens), one access
	 * decision, one set of answers.
	 */
	@Bean
	FrontDoor frontDoor(RelayProperties properties, UpstreamRegistry upstreams, McpRouting routing,
			VirtualServers virtualServers, MeterRegistry registry,
			ObjectProvider<ForwardedHeaderTransformer> forwardedHeaders, ObjectProvider<LiveConfiguration> live,
			KeyServers keyServers, CallerAuthentication callers) {
		SecurityProperties security = properties.security();
		SecurityMode mode = security.mode();
		if (mode == null) {
			throw new IllegalStateException("mcp-relay.security.mode is not set");
		}
		if (mode == SecurityMode.NONE) {
			return FrontDoor.open();
		}
		Supplier<ConfigurationSnapshot> current = () -> live.getObject().current();
		FrontDoorAnswers answers = new FrontDoorAnswers(mode, routing, registry);
		ServerAccess access = new ServerAccess(upstreams, routing, virtualServers, keyServers, current);
		ManagementAccess management = new ManagementAccess(
				() -> mode == SecurityMode.JWT ? current.get().properties().security().jwt().managementScopes()
						: List.of());
		ForwardedHeaderTransformer transformer = forwardedHeaders.getIfAvailable();
		boolean adaptToForwardedHeaders = transformer != null && !transformer.isRemoveOnly();
		if (mode == SecurityMode.API_KEY) {
			log.info("Callers authenticate with API keys ({} configured)", security.apiKeys().size());
			return new FrontDoor(new SingleCredential(new ApiKeyCredentials()), callers, current, access, management,
					answers, adaptToForwardedHeaders);
		}
		log.info("Callers authenticate with JWT access tokens from {}",
				security.jwt().issuerUri() != null ? security.jwt().issuerUri() : security.jwt().jwkSetUri());
		if (security.jwt().expectedIssuer() == null) {
			log.warn("mcp-relay.security.jwt has no issuer: tokens are accepted from whoever holds a key of {}, and "
					+ "the RFC 9728 metadata names no authorization server for clients to log in with. Set "
					+ "mcp-relay.security.jwt.issuer to the issuer of your tokens.", security.jwt().jwkSetUri());
		}
		return new FrontDoor(new SingleCredential(new BearerTokenCredentials()), callers, current, access, management,
				answers, adaptToForwardedHeaders);
	}

	/**
	 * Spring Security's chain for the paths off Reactor Netty's route (the actuator, RFC 9728 metadata, the demo
	 * upstream): the front door's own parts, so that a credential is read, checked and refused alike everywhere.
	 */
	static SecurityWebFilterChain frontDoorChain(ServerHttpSecurity http, FrontDoor frontDoor, Environment environment,
			SeparateManagementPort managementPort) {
		http.csrf(ServerHttpSecurity.CsrfSpec::disable)
			.httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
			.formLogin(ServerHttpSecurity.FormLoginSpec::disable)
			.logout(ServerHttpSecurity.LogoutSpec::disable)
			.anonymous(ServerHttpSecurity.AnonymousSpec::disable)
			.headers(ServerHttpSecurity.HeaderSpec::disable)
			.requestCache(ServerHttpSecurity.RequestCacheSpec::disable)
			.securityContextRepository(NoOpServerSecurityContextRepository.getInstance());
		FrontDoorAnswers answers = frontDoor.answers();
		boolean demo = environment.acceptsProfiles(Profiles.of("demo"));
		http.authorizeExchange(exchanges -> {
			exchanges.matchers(EndpointRequest.to(HealthEndpoint.class)).permitAll();
			exchanges.matchers(managementPort).permitAll();
			exchanges.pathMatchers(HttpMethod.GET, ProtectedResourceMetadata.PREFIX + "/**").permitAll();
			if (demo) {
				exchanges.pathMatchers("/" + DemoMcpServer.SEGMENT + "/**").permitAll();
			}
			exchanges.matchers(EndpointRequest.toAnyEndpoint()).access(frontDoor.management());
			exchanges.anyExchange().access(frontDoor.access());
		}).exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(answers).accessDeniedHandler(answers));
		CredentialReader credentials = frontDoor.credentials();
		ServerAuthenticationConverter converter = exchange -> Mono
			.fromCallable(() -> credentials.read(exchange.getRequest().getHeaders()));
		if (frontDoor.byApiKey()) {
			AuthenticationWebFilter apiKeys = new AuthenticationWebFilter(frontDoor.authentication());
			apiKeys.setServerAuthenticationConverter(converter);
			apiKeys.setAuthenticationFailureHandler(answers);
			apiKeys.setSecurityContextRepository(NoOpServerSecurityContextRepository.getInstance());
			http.addFilterAt(apiKeys, SecurityWebFiltersOrder.AUTHENTICATION);
		}
		else {
			http.oauth2ResourceServer(resourceServer -> resourceServer.bearerTokenConverter(converter)
				.jwt(jwt -> jwt.authenticationManager(frontDoor.authentication()))
				.authenticationEntryPoint(answers)
				.accessDeniedHandler(answers)
				.authenticationFailureHandler(answers));
		}
		return http.build();
	}

	/** RFC 9728 metadata, in {@code jwt} mode only; ahead of the MCP routes, whose {@code /{server}/mcp} is broad. */
	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	RouterFunction<ServerResponse> protectedResourceMetadata(RelayProperties properties, UpstreamRegistry upstreams,
			McpRouting routing, dev.mcprelay.live.LiveConfiguration live) {
		if (properties.security().mode() != SecurityMode.JWT) {
			return request -> reactor.core.publisher.Mono.empty();
		}
		ProtectedResourceMetadata metadata = new ProtectedResourceMetadata(upstreams, routing, live);
		return RouterFunctions.route(RequestPredicates.GET(ProtectedResourceMetadata.PREFIX + "/**"), metadata::serve);
	}

	private static void warnIfReachable(Environment environment) {
		String address = environment.getProperty("server.address");
		boolean loopback = false;
		if (address != null) {
			try {
				loopback = InetAddress.getByName(address).isLoopbackAddress();
			}
			catch (UnknownHostException ex) {
				loopback = false;
			}
		}
		if (!loopback) {
			log.warn("mcp-relay.security.mode is none and the relay listens on {}: anyone who can reach its port uses "
					+ "the configured upstream credentials. Set mode to api-key or jwt, or listen on loopback only "
					+ "(server.address: 127.0.0.1).", address == null ? "every address" : address);
		}
	}

}
