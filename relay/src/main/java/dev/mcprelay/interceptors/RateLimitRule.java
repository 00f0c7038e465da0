package dev.mcprelay.interceptors;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.config.RateLimitProperties;
import dev.mcprelay.config.RateLimitScope;
import dev.mcprelay.config.RateLimitStoreFailure;
import dev.mcprelay.config.ToolsProperties;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;

/**
 * One {@code mcp-relay.rate-limits[n]} rule, compiled: which requests it counts, whose budget they come from, and the
 * budget itself (a token bucket of {@code limit} tokens refilled evenly over {@code period}, so a caller that spent it
 * gets a token back every {@code period / limit}).
 *
 * <p>Its buckets are named by the rule's name and {@linkplain #version() version}, a digest of what shapes its budget
 * ({@code match}, {@code per}, {@code limit}, {@code period}): a rule a reload leaves as it was keeps its buckets, on
 * every replica and in Redis (its keys do not change), and a rule a reload changes starts with fresh ones. A rule
 * whose settings return to earlier ones meets the buckets it had under them again, refilled for the time passed (or
 * forgotten while unused, and full): the version is the content's, never the reload's, since every replica must name
 * a bucket alike whatever reloads it saw, for replicas to share it in Redis. Changing {@code on-store-failure} alone
 * keeps them.
 */
final class RateLimitRule {

	private final String name;

	private final ToolNameFilter servers;

	private final ToolNameFilter tools;

	private final RateLimitScope per;

	private final BucketConfiguration bucket;

	private final String description;

	private final boolean failsClosed;

	private final RateLimitProperties properties;

	private final String version;

	RateLimitRule(RateLimitProperties properties, int index) {
		this.properties = properties;
		this.version = version(properties);
		this.failsClosed = properties.onStoreFailure() == RateLimitStoreFailure.FAIL_CLOSED;
		this.name = properties.nameOr(index);
		this.servers = glob(properties.match().server());
		this.tools = properties.match().tool() == null ? null : glob(properties.match().tool());
		this.per = properties.per();
		this.bucket = BucketConfiguration.builder()
			.addLimit(Bandwidth.builder()
				.capacity(properties.limit())
				.refillGreedy(properties.limit(), properties.period())
				.build())
			.build();
		this.description = properties.limit() + " per " + properties.period().toString().substring(2).toLowerCase();
	}

	String name() {
		return name;
	}

	/** What it was compiled from. */
	RateLimitProperties properties() {
		return properties;
	}

	/** The digest of what shapes its budget: the same on every replica for the same rule. */
	String version() {
		return version;
	}

	/** Who shares the rule's budget: the order of the scopes is from the narrowest budget to the widest. */
	RateLimitScope per() {
		return per;
	}

	/** Whether a request is refused when the store cannot answer its check ({@code on-store-failure: fail-closed}). */
	boolean failsClosed() {
		return failsClosed;
	}

	BucketConfiguration bucket() {
		return bucket;
	}

	/** "60 per 1m", for the message the client reads. */
	String description() {
		return description;
	}

	boolean appliesTo(String server) {
		return servers.offers(server);
	}

	/** Whether the rule counts a request of {@code method}; a rule with a tool glob counts matching tool calls only. */
	boolean counts(String method, String toolName) {
		return tools == null || ("tools/call".equals(method) && tools.offers(toolName));
	}

	/** The bucket a request from {@code caller} to {@code server} draws from: {@code <name>|<version>|...}. */
	String key(String server, String caller) {
		String rule = name + "|" + version;
		return switch (per) {
			case CLIENT -> rule + "|" + server + "|" + caller;
			case SERVER -> rule + "|" + server;
			case GLOBAL -> rule;
		};
	}

	/** Eight hex digits of the SHA-256 of the rule's match, scope, limit and period, as written. */
	private static String version(RateLimitProperties rule) {
		String budget = rule.match().server() + "\n" + rule.match().tool() + "\n" + rule.per() + "\n" + rule.limit()
				+ "\n" + rule.period();
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(budget.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 4);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	private static ToolNameFilter glob(String glob) {
		return new ToolNameFilter(new ToolsProperties(List.of(glob), List.of()));
	}

}
