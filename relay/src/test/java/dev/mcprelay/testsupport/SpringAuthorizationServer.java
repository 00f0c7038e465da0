package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.context.annotation.AnnotatedBeanDefinitionReader;
import org.springframework.context.annotation.Bean;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.oauth2.server.authorization.OAuth2AuthorizationServerConfigurer;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.server.authorization.InMemoryOAuth2AuthorizationService;
import org.springframework.security.oauth2.server.authorization.OAuth2Authorization;
import org.springframework.security.oauth2.server.authorization.OAuth2AuthorizationService;
import org.springframework.security.oauth2.server.authorization.authentication.OAuth2ClientCredentialsAuthenticationToken;
import org.springframework.security.oauth2.server.authorization.authentication.OAuth2TokenExchangeAuthenticationToken;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.settings.AuthorizationServerSettings;
import org.springframework.security.oauth2.server.authorization.settings.TokenSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.context.support.GenericWebApplicationContext;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;

import jakarta.servlet.Filter;

/**
 * A real OAuth 2.0 authorization server in the test JVM: Spring Authorization Server on embedded Tomcat, on
 * 127.0.0.1, issuing JWT access tokens by client credentials and by token exchange (RFC 8693), with a short lifetime
 * the test chooses. Clients: {@value #RELAY_CLIENT} (the relay, both grants) and {@value #CALLER_CLIENT} (a caller,
 * client credentials, whose token the relay exchanges). A token's audience is the {@code resource} or
 * {@code audience} the request named. Token requests are counted, and the server can be made slow or to refuse
 * ({@code invalid_grant}), or stopped.
 */
public final class SpringAuthorizationServer implements AutoCloseable {

	public static final String RELAY_CLIENT = "mcp-relay";

	public static final String RELAY_SECRET = "relay-client-secret-5b7d9f1e3a";

	public static final String CALLER_CLIENT = "alice-app";

	public static final String CALLER_SECRET = "alice-app-secret-2c4e6a8b0d";

	/** The relay as a client that authenticates with its own key ({@code private_key_jwt}). */
	public static final String KEYED_RELAY_CLIENT = "mcp-relay-keyed";

	/** The keyed client's RSA key pair: its public half served at {@code /client-jwks} for the server to check. */
	static final KeyPair CLIENT_KEY = rsaKeyPair();

	public static final String OTHER_CALLER_CLIENT = "bob-app";

	public static final String OTHER_CALLER_SECRET = "bob-app-secret-7f9a1c3e5b";

	/** How the token endpoint behaves. */
	public enum Mode {
		/** answers */
		NORMAL,
		/** answers after {@link #delay} */
		SLOW,
		/** answers 400 invalid_grant */
		REFUSE,
		/** answers without {@code expires_in}, which RFC 6749 makes optional (GitHub's OAuth apps, for one, omit it) */
		WITHOUT_EXPIRY
	}

	private static final AtomicInteger INSTANCES = new AtomicInteger();

	private final Tomcat tomcat = new Tomcat();

	private final GenericWebApplicationContext context = new GenericWebApplicationContext();

	private final TokenRequests requests = new TokenRequests();

	public SpringAuthorizationServer(Duration tokenLifetime) {
		try {
			tomcat.setBaseDir(Files.createTempDirectory("authorization-server").toString());
			tomcat.setPort(0);
			tomcat.getConnector().setProperty("address", "127.0.0.1");
			Context web = tomcat.addContext("", null);
			addFilter(web, "requests", requests);
			// the security filter chain, looked up per request: the context is refreshed once Tomcat knows its port
			addFilter(web, "security", (request, response, chain) -> context
				.getBean("springSecurityFilterChain", Filter.class).doFilter(request, response, chain));
			// what no filter answers is not found
			Tomcat.addServlet(web, "nothing", new jakarta.servlet.http.HttpServlet() {
				@Override
				protected void service(jakarta.servlet.http.HttpServletRequest request,
						jakarta.servlet.http.HttpServletResponse response) throws IOException {
					response.sendError(404);
				}
			});
			web.addServletMappingDecoded("/", "nothing");
			Tomcat.addServlet(web, "clientJwks", new jakarta.servlet.http.HttpServlet() {
				@Override
				protected void doGet(jakarta.servlet.http.HttpServletRequest request,
						jakarta.servlet.http.HttpServletResponse response) throws IOException {
					response.setContentType("application/json");
					response.getWriter().write(new JWKSet(new RSAKey.Builder((RSAPublicKey) CLIENT_KEY.getPublic())
						.keyID("relay-key-1").build()).toString());
				}
			});
			web.addServletMappingDecoded("/client-jwks", "clientJwks");
			tomcat.start();
			int port = tomcat.getConnector().getLocalPort();
			context.setId("authorization-server-" + INSTANCES.incrementAndGet());
			context.registerBean("settings", AuthorizationServerSettings.class,
					() -> AuthorizationServerSettings.builder().issuer("http://127.0.0.1:" + port).build());
			context.registerBean("tokenSettings", TokenSettings.class,
					() -> TokenSettings.builder().accessTokenTimeToLive(tokenLifetime).build());
			new AnnotatedBeanDefinitionReader(context).register(Config.class);
			context.setServletContext(web.getServletContext());
			context.refresh();
		}
		catch (IOException | LifecycleException ex) {
			throw new IllegalStateException("Could not start the authorization server", ex);
		}
	}

	private static void addFilter(Context web, String name, Filter filter) {
		FilterDef def = new FilterDef();
		def.setFilterName(name);
		def.setFilter(filter);
		def.setAsyncSupported("true");
		web.addFilterDef(def);
		FilterMap map = new FilterMap();
		map.setFilterName(name);
		map.addURLPattern("/*");
		web.addFilterMap(map);
	}

	public String issuer() {
		return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
	}

	public String tokenUri() {
		return issuer() + "/oauth2/token";
	}

	/** Token requests answered so far (any grant, any outcome). */
	public int tokenRequests() {
		return requests.count();
	}

	/**
	 * The most token requests the endpoint answered at one time since {@link #resetMostAtOnce()}: more than one for
	 * one client means its token requests did not fly single.
	 */
	public int mostTokenRequestsAtOnce() {
		return requests.mostAtOnce();
	}

	public void resetMostAtOnce() {
		requests.resetMostAtOnce();
	}

	/** How the token endpoint behaves from now on; {@code delay} for {@link Mode#SLOW}. */
	public void mode(Mode mode, Duration delay) {
		requests.mode(mode, delay);
	}

	/** The keyed client's private key, PEM (PKCS#8), as an operator would configure it. */
	public static String keyedClientPrivateKeyPem() {
		return "-----BEGIN PRIVATE KEY-----\n"
				+ java.util.Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
					.encodeToString(CLIENT_KEY.getPrivate().getEncoded())
				+ "\n-----END PRIVATE KEY-----\n";
	}

	private static KeyPair rsaKeyPair() {
		try {
			KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
			generator.initialize(2048);
			return generator.generateKeyPair();
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A caller's access token, issued to {@value #CALLER_CLIENT} for {@code audience}. */
	public String callerToken(String audience) {
		return requests.token(tokenUri(), CALLER_CLIENT, CALLER_SECRET, audience);
	}

	/** Another caller's access token, issued to {@value #OTHER_CALLER_CLIENT} for {@code audience}. */
	public String otherCallerToken(String audience) {
		return requests.token(tokenUri(), OTHER_CALLER_CLIENT, OTHER_CALLER_SECRET, audience);
	}

	@Override
	public void close() {
		try {
			context.close();
			tomcat.stop();
			tomcat.destroy();
		}
		catch (LifecycleException ex) {
			// going away
		}
	}

	/** Not a {@code @Configuration}: the relay's own component scan must not find it; registered by hand above. */
	@EnableWebSecurity
	static class Config {

		@Bean
		SecurityFilterChain authorizationServer(HttpSecurity http) throws Exception {
			OAuth2AuthorizationServerConfigurer server = new OAuth2AuthorizationServerConfigurer();
			http.securityMatcher(server.getEndpointsMatcher())
				.with(server, Customizer.withDefaults())
				.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
				.csrf(csrf -> csrf.ignoringRequestMatchers(server.getEndpointsMatcher()));
			return http.build();
		}

		@Bean
		RegisteredClientRepository clients(TokenSettings tokenSettings, AuthorizationServerSettings settings) {
			RegisteredClient relay = RegisteredClient.withId(UUID.randomUUID().toString())
				.clientId(RELAY_CLIENT)
				.clientSecret("{noop}" + RELAY_SECRET)
				.clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
				.clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_POST)
				.authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
				.authorizationGrantType(AuthorizationGrantType.TOKEN_EXCHANGE)
				.scope("mcp.read")
				.tokenSettings(tokenSettings)
				.build();
			RegisteredClient caller = RegisteredClient.withId(UUID.randomUUID().toString())
				.clientId(CALLER_CLIENT)
				.clientSecret("{noop}" + CALLER_SECRET)
				.clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_POST)
				.authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
				.scope("mcp")
				.tokenSettings(TokenSettings.builder().accessTokenTimeToLive(Duration.ofMinutes(10)).build())
				.build();
			RegisteredClient other = RegisteredClient.from(caller)
				.id(UUID.randomUUID().toString())
				.clientId(OTHER_CALLER_CLIENT)
				.clientSecret("{noop}" + OTHER_CALLER_SECRET)
				.build();
			RegisteredClient keyed = RegisteredClient.withId(UUID.randomUUID().toString())
				.clientId(KEYED_RELAY_CLIENT)
				.clientAuthenticationMethod(ClientAuthenticationMethod.PRIVATE_KEY_JWT)
				.authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
				.scope("mcp.read")
				.clientSettings(org.springframework.security.oauth2.server.authorization.settings.ClientSettings.builder()
					.jwkSetUrl(settings.getIssuer() + "/client-jwks")
					.tokenEndpointAuthenticationSigningAlgorithm(
							org.springframework.security.oauth2.jose.jws.SignatureAlgorithm.RS256)
					.build())
				.tokenSettings(tokenSettings)
				.build();
			return new InMemoryRegisteredClientRepository(relay, caller, other, keyed);
		}

		/**
		 * Authorizations kept in memory, each with its principal, as a login's would carry it: the token exchange takes
		 * only subject tokens whose authorization names a principal, and a client-credentials grant (how the test's
		 * callers get tokens, with no user to log in) names none of its own.
		 */
		@Bean
		OAuth2AuthorizationService authorizations() {
			InMemoryOAuth2AuthorizationService kept = new InMemoryOAuth2AuthorizationService();
			return new OAuth2AuthorizationService() {

				@Override
				public void save(OAuth2Authorization authorization) {
					OAuth2Authorization withPrincipal = authorization;
					if (authorization.getAttribute(Principal.class.getName()) == null) {
						withPrincipal = OAuth2Authorization.from(authorization)
							.attribute(Principal.class.getName(), new UsernamePasswordAuthenticationToken(
									authorization.getPrincipalName(), null, List.of()))
							.build();
					}
					kept.save(withPrincipal);
				}

				@Override
				public void remove(OAuth2Authorization authorization) {
					kept.remove(authorization);
				}

				@Override
				public OAuth2Authorization findById(String id) {
					return kept.findById(id);
				}

				@Override
				public OAuth2Authorization findByToken(String token,
						org.springframework.security.oauth2.server.authorization.OAuth2TokenType tokenType) {
					return kept.findByToken(token, tokenType);
				}

			};
		}

		/** The audience a token request named ({@code resource} or {@code audience}), as the token's {@code aud}. */
		@Bean
		OAuth2TokenCustomizer<JwtEncodingContext> audience() {
			return context -> {
				List<String> audiences = new ArrayList<>();
				if (context.getAuthorizationGrant() instanceof OAuth2ClientCredentialsAuthenticationToken grant) {
					Map<String, Object> parameters = grant.getAdditionalParameters();
					for (String name : List.of("resource", "audience")) {
						if (parameters.get(name) instanceof String value) {
							audiences.add(value);
						}
					}
				}
				else if (context.getAuthorizationGrant() instanceof OAuth2TokenExchangeAuthenticationToken grant) {
					audiences.addAll(grant.getAudiences());
					audiences.addAll(grant.getResources());
				}
				if (!audiences.isEmpty()) {
					context.getClaims().audience(audiences);
				}
			};
		}

		@Bean
		JWKSource<SecurityContext> keys() {
			try {
				KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
				generator.initialize(2048);
				KeyPair pair = generator.generateKeyPair();
				RSAKey key = new RSAKey.Builder((RSAPublicKey) pair.getPublic())
					.privateKey((RSAPrivateKey) pair.getPrivate())
					.keyID(UUID.randomUUID().toString())
					.build();
				return new ImmutableJWKSet<>(new JWKSet(key));
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
