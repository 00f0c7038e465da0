package dev.mcprelay.testsupport;

import java.util.Map;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * One subject with two tokens for the policy tests in {@code jwt} mode: one with scope {@code tools:write} ({@link #WRITE})
 * and one without ({@link #READ}), and the policy {@code writers} that refuses (and so hides) every tool that does not
 * say it only reads unless the token has that scope. What the two tokens may use differs though the caller, and its
 * view of every upstream, is the same: what a relay keeps per caller or view must never decide one token's answer by
 * the other's.
 */
public final class ScopedTokens {

	/** The audience the relay accepts. */
	public static final String AUDIENCE = "mcp-relay-policies";

	/** The scope of the token that may call every tool. */
	public static final String WRITE = "mcp tools:write";

	/** The scope of the token that may call only the tools that say they only read. */
	public static final String READ = "mcp";

	private ScopedTokens() {
	}

	/**
	 * Sets {@code mcp-relay.security.mode: jwt} with {@code auth}'s issuer, and the policy {@code writers} as
	 * {@code mcp-relay.policies[index]}, governing every server ({@code *}).
	 */
	public static void register(DynamicPropertyRegistry registry, TestAuthorizationServer auth, int index) {
		registry.add("mcp-relay.security.mode", () -> "jwt");
		registry.add("mcp-relay.security.jwt.issuer-uri", auth::issuer);
		registry.add("mcp-relay.security.jwt.audience", () -> AUDIENCE);
		String policy = "mcp-relay.policies[" + index + "].";
		registry.add(policy + "name", () -> "writers");
		registry.add(policy + "servers[0]", () -> "*");
		registry.add(policy + "deny", () -> "mcp.method == \"tools/call\" "
				+ "&& !mcp.tool.annotations.?readOnlyHint.orValue(false) && !(\"tools:write\" in caller.scopes)");
	}

	/** A client of the relay on {@code port} with a token of {@code auth} for {@code subject} with {@code scope}. */
	public static RawHttp http(int port, TestAuthorizationServer auth, String subject, String scope) {
		return new RawHttp(port, "Authorization", "Bearer " + auth.token(AUDIENCE, subject, scope, Map.of()));
	}

}
