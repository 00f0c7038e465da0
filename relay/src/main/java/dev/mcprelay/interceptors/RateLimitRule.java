package dev.mcprelay.interceptors;

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
 */
final class RateLimitRule {

	private final String name;

	private final ToolNameFilter servers;

	private final ToolNameFilter tools;

	private final RateLimitScope per;

	private final BucketConfiguration bucket;

	private final String description;

	private final boolean failsClosed;

	RateLimitRule(RateLimitProperties properties, int index) {
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

	/** The bucket a request from {@code caller} to {@code server} draws from. */
	String key(String server, String caller) {
		return switch (per) {
			case CLIENT -> name + "|" + server + "|" + caller;
			case SERVER -> name + "|" + server;
			case GLOBAL -> name;
		};
	}

	private static ToolNameFilter glob(String glob) {
		return new ToolNameFilter(new ToolsProperties(List.of(glob), List.of()));
	}

}
