package dev.mcprelay.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A real MCP server (the Java SDK's, stateless, JSON answers) behind Spring Security's JWT validation, as an
 * organisation protects one: every request needs a bearer token from {@link SpringAuthorizationServer}, signed by its
 * keys, for this server's audience, not expired (no clock skew allowed). Its tool {@code whoami} answers with the
 * token's subject. Each accepted token is recorded; a test can make it refuse the next requests with 401.
 */
public final class ProtectedMcpUpstream implements AutoCloseable {

	/** A request the upstream accepted: the token's subject and value. */
	public record Accepted(String subject, String token) {
	}

	private final Tomcat tomcat = new Tomcat();

	private final List<Accepted> accepted = new CopyOnWriteArrayList<>();

	private final AtomicInteger refusals = new AtomicInteger();

	private final AtomicInteger rejectedTokens = new AtomicInteger();

	private final java.util.Set<String> revoked = java.util.concurrent.ConcurrentHashMap.newKeySet();

	private volatile java.util.concurrent.CountDownLatch refusedTogether = new java.util.concurrent.CountDownLatch(0);

	/** The request attribute, and transport-context key, of the accepted token's subject. */
	private static final String SUBJECT = "subject";

	public ProtectedMcpUpstream(SpringAuthorizationServer authorizationServer, String audience) {
		this(authorizationServer, audience, java.time.Duration.ZERO);
	}

	/**
	 * An upstream that accepts a token up to {@code clockSkew} past its expiry: for tests of how often the relay asks
	 * for tokens, where a loaded machine's request that reaches the upstream after its token's short life is not the
	 * point.
	 */
	public ProtectedMcpUpstream(SpringAuthorizationServer authorizationServer, String audience,
			java.time.Duration clockSkew) {
		NimbusJwtDecoder decoder = NimbusJwtDecoder.withJwkSetUri(authorizationServer.issuer() + "/oauth2/jwks").build();
		OAuth2TokenValidator<Jwt> validator = new DelegatingOAuth2TokenValidator<>(
				JwtValidators.createDefaultWithIssuer(authorizationServer.issuer()),
				new JwtTimestampValidator(clockSkew),
				new JwtClaimValidator<List<String>>("aud", aud -> aud != null && aud.contains(audience)));
		decoder.setJwtValidator(validator);
		HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
			.messageEndpoint("/mcp")
			.contextExtractor(request -> io.modelcontextprotocol.common.McpTransportContext
				.create(java.util.Map.of(SUBJECT, String.valueOf(request.getAttribute(SUBJECT)))))
			.build();
		McpServer.sync(transport)
			.serverInfo("protected-upstream", "1.0.0")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
			.tools(McpStatelessServerFeatures.SyncToolSpecification.builder()
				.tool(McpSchema.Tool.builder().name("whoami").description("Says who the token is for")
					.inputSchema(new McpSchema.JsonSchema("object", null, null, null, null, null))
					.build())
				.callHandler((context, request) -> McpSchema.CallToolResult.builder()
					.addTextContent(String.valueOf(context.get(SUBJECT)))
					.build())
				.build())
			.build();
		try {
			tomcat.setBaseDir(Files.createTempDirectory("protected-upstream").toString());
			tomcat.setPort(0);
			tomcat.getConnector().setProperty("address", "127.0.0.1");
			Context web = tomcat.addContext("", null);
			FilterDef def = new FilterDef();
			def.setFilterName("bearer");
			def.setFilter((Filter) (request, response, chain) -> {
				HttpServletRequest http = (HttpServletRequest) request;
				HttpServletResponse answer = (HttpServletResponse) response;
				String header = http.getHeader("Authorization");
				if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0 || header == null || !header.startsWith("Bearer ")) {
					answer.setStatus(401);
					answer.setHeader("WWW-Authenticate", "Bearer");
					return;
				}
				String token = header.substring(7);
				if (revoked.contains(token)) {
					java.util.concurrent.CountDownLatch together = refusedTogether;
					together.countDown();
					try {
						together.await(30, java.util.concurrent.TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					rejectedTokens.incrementAndGet();
					answer.setStatus(401);
					answer.setHeader("WWW-Authenticate", "Bearer error=\"invalid_token\"");
					return;
				}
				Jwt jwt;
				try {
					jwt = decoder.decode(token);
				}
				catch (JwtException ex) {
					rejectedTokens.incrementAndGet();
					answer.setStatus(401);
					answer.setHeader("WWW-Authenticate", "Bearer error=\"invalid_token\"");
					return;
				}
				accepted.add(new Accepted(jwt.getSubject(), token));
				request.setAttribute(SUBJECT, jwt.getSubject());
				chain.doFilter(request, response);
			});
			web.addFilterDef(def);
			FilterMap map = new FilterMap();
			map.setFilterName("bearer");
			map.addURLPattern("/*");
			web.addFilterMap(map);
			Tomcat.addServlet(web, "mcp", transport).setAsyncSupported(true);
			web.addServletMappingDecoded("/mcp", "mcp");
			tomcat.start();
		}
		catch (IOException | LifecycleException ex) {
			throw new IllegalStateException("Could not start the protected upstream", ex);
		}
	}

	public String url() {
		return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/mcp";
	}

	/** Every request the upstream accepted, in order. */
	public List<Accepted> accepted() {
		return List.copyOf(accepted);
	}

	/** Tokens the upstream refused as invalid (expired, wrong audience, bad signature). */
	public int rejectedTokens() {
		return rejectedTokens.get();
	}

	/**
	 * Refuses {@code token} with 401 from now on, as a server that learnt it was revoked; the first {@code together}
	 * requests that carry it are refused at once, when the last of them has arrived (so that each was sent with it).
	 */
	public void revoke(String token, int together) {
		refusedTogether = new java.util.concurrent.CountDownLatch(together);
		revoked.add(token);
	}

	/** Refuses the next {@code count} requests with 401, whatever their token. */
	public void refuseNext(int count) {
		refusals.set(count);
	}

	@Override
	public void close() {
		try {
			tomcat.stop();
			tomcat.destroy();
		}
		catch (LifecycleException ex) {
			// going away
		}
	}

}
