package dev.mcprelay.interceptors;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.UserRequestInterceptor;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.RateLimitProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.intercept.ConfiguredInterceptor;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.metrics.KeptCounters;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.session.StoreHeldException;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The rate limits of {@code mcp-relay.rate-limits}, at the user-request stage, before every other interceptor: each
 * JSON-RPC request a client POSTs takes one token from the bucket of every rule that matches it (its server, and for a
 * rule with a {@code tool} glob, a {@code tools/call} of a matching tool), per client, per server or globally, the
 * rules asked narrowest budget first ({@code per: client}, then {@code server}, then {@code global}; configuration order
 * among equals) up to the first that refuses: a request one rule refuses spends nothing of the others (the rules after
 * it are not asked, the tokens of the rules before it are given back before the answer), so a caller past its own
 * limit never takes, nor holds, a token of a budget others share, whatever order the rules are written in. The checks
 * share one bound ({@link #CHECK_BOUND}, however many rules), the tokens given back another ({@link #REFUND_BOUND}).
 * Notifications, responses, GET and DELETE are never counted.
 *
 * <p>A request a rule has no token for is refused: HTTP 429 with {@code Retry-After} when it is the whole answer
 * (inside a batch partly forwarded, or on an SSE answer, it is one error among the answers), JSON-RPC error -32000
 * with {@code data.reason: rate_limited}, the rule and {@code retryAfterSeconds}; counted in
 * {@code mcp.relay.rate.limit.rejections} by rule and server. When the shared store (Redis) cannot be reached the
 * request is let through (limits fail open: an outage of Redis must not become an outage of every MCP server), or, for a
 * rule with {@code on-store-failure: fail-closed}, refused with HTTP 503 and {@code data.reason:
 * rate_limit_unavailable}; either way the check is counted in {@code mcp.relay.rate.limit.store.errors} and logged at
 * most once a minute.
 *
 * <p>The rules are a part of each configuration snapshot ({@link SnapshotPart}): a request is counted by the rules of
 * the snapshot it took at its first byte, so a server a reload adds is counted by the rules that match it from its
 * first request. The buckets live in {@link RateLimitBuckets}, by key: a rule a reload leaves unchanged keeps its
 * buckets (a caller at its limit stays there), a rule it changes starts with full ones ({@link RateLimitRule#key}).
 */
final class RateLimitPolicy
		implements UserRequestInterceptor, ConfiguredInterceptor, Ordered, SnapshotPart<List<RateLimitRule>> {

	/** Before the tool policies and every interceptor of default order: a flood costs nothing further. */
	static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 500;

	private static final Logger log = LoggerFactory.getLogger(RateLimitPolicy.class);

	private static final long LOG_INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

	/** How long a request's whole check may wait for the store, every rule and refund together. */
	static final Duration CHECK_BOUND = Duration.ofSeconds(1);

	/**
	 * How long giving back the tokens of a refused request may wait for the store, after the check: a bound of its own,
	 * so that a check that used all of {@link #CHECK_BOUND} does not leave the tokens taken.
	 */
	static final Duration REFUND_BOUND = Duration.ofSeconds(1);

	/**
	 * The order a request's rules are asked in: the narrowest budget first (the caller's own, then its server's, then
	 * the global one), configuration order among equals. A caller past its own limit is refused by its own rule before
	 * a budget others share is asked, whatever order the rules are written in.
	 */
	private static final Comparator<RateLimitRule> NARROWEST_FIRST = Comparator.comparing(RateLimitRule::per);

	/** The rules a request is counted by: those of its configuration snapshot. */
	private final Function<CallContext, List<RateLimitRule>> rulesOf;

	private final RateLimitBuckets buckets;

	private final KeptCounters counters;

	private static final String REJECTIONS = "Requests a rate-limit rule refused";

	private static final String STORE_ERRORS = "Rate-limit checks that could not reach the shared store; let through, "
			+ "or refused by fail-closed rules";

	private final AtomicLong lastStoreWarning = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

	/** The rate limits of each request's configuration snapshot ({@link CallConfiguration}). */
	RateLimitPolicy(RateLimitBuckets buckets, MeterRegistry registry, ObjectProvider<LiveConfiguration> live) {
		this.buckets = buckets;
		this.counters = new KeptCounters(registry);
		this.rulesOf = context -> {
			ConfigurationSnapshot snapshot = CallConfiguration.of(context);
			return of(snapshot != null ? snapshot : live.getObject().current());
		};
	}

	/** The rate limits of fixed {@code properties}, whatever a request's snapshot: for unit tests. */
	RateLimitPolicy(RelayProperties properties, RateLimitBuckets buckets, MeterRegistry registry) {
		this.buckets = buckets;
		this.counters = new KeptCounters(registry);
		List<RateLimitRule> rules = rules(properties, null);
		this.rulesOf = context -> rules;
	}

	@Override
	public String partName() {
		return "rate limits";
	}

	/**
	 * The snapshot's rules, each the previous snapshot's where it is written as it was (same name, same properties),
	 * else compiled; the counters of each rule and every server it counts declared at 0 (a server a reload added
	 * included). The buckets are not part of it: they are kept by key, which an unchanged rule keeps
	 * ({@link RateLimitRule#key}).
	 */
	@Override
	public List<RateLimitRule> compile(SnapshotCompilation compilation) {
		return rules(compilation.properties(), compilation.previous(this));
	}

	private List<RateLimitRule> rules(RelayProperties properties, List<RateLimitRule> previous) {
		List<RateLimitRule> compiled = new ArrayList<>();
		for (int i = 0; i < properties.rateLimits().size(); i++) {
			RateLimitProperties rule = properties.rateLimits().get(i);
			String name = rule.nameOr(i);
			int index = i;
			compiled.add(previous == null ? new RateLimitRule(rule, index) : previous.stream()
				.filter(known -> known.name().equals(name) && known.properties().equals(rule))
				.findFirst()
				.orElseGet(() -> new RateLimitRule(rule, index)));
		}
		// at 0 from start-up, per rule and every server it counts, so that the first refusal shows as an increase
		compiled.forEach(rule -> properties.servers().keySet().stream().filter(rule::appliesTo).forEach(server -> counters
			.declare(RelayMeters.RATE_LIMIT_REJECTIONS, REJECTIONS, RelayMeters.RULE, rule.name(), RelayMeters.SERVER,
					server)));
		if (properties.sessions().store() == dev.mcprelay.config.SessionStoreKind.REDIS) {
			compiled.forEach(rule -> counters.declare(RelayMeters.RATE_LIMIT_STORE_ERRORS, STORE_ERRORS,
					RelayMeters.RULE, rule.name()));
		}
		return List.copyOf(compiled);
	}

	/**
	 * A server some rule of the snapshot counts: one no rule matches has no rate-limit interceptor in that snapshot,
	 * and gets it from the first request of a snapshot whose rules match it.
	 */
	@Override
	public boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		return compilation.part(this).stream().anyMatch(rule -> rule.appliesTo(server));
	}

	@Override
	public String name() {
		return "rate-limit";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public Mono<Outcome> interceptUserRequest(ClientMessage message) {
		if (message.kind() != JsonRpcMessage.Kind.REQUEST) {
			return Outcome.proceed();
		}
		List<RateLimitRule> rules = rulesOf.apply(message.context());
		if (rules.isEmpty()) {
			return Outcome.proceed();
		}
		String server = message.server();
		String method = message.method();
		JsonNode name = message.params() == null ? null : message.params().get("name");
		String tool = name != null && name.isTextual() ? name.textValue() : null;
		List<RateLimitRule> matching = rules.stream()
			.filter(rule -> rule.appliesTo(server) && rule.counts(method, tool))
			.sorted(NARROWEST_FIRST)
			.toList();
		if (matching.isEmpty()) {
			return Outcome.proceed();
		}
		String caller = callerKey(message.context().caller());
		CheckDeadline deadline = new CheckDeadline(CHECK_BOUND);
		if (matching.size() == 1) {
			return check(matching.get(0), server, caller, deadline).flatMap(check -> decide(check, server));
		}
		// One rule after the other, the caller's own first, up to the first that refuses: a rule after it is never
		// asked, so its tokens (a budget other callers share) are not spent, nor held, for a request that is refused
		// anyway. One deadline for them all: a store that hangs costs the request one bound, not one per rule.
		return Flux.fromIterable(matching)
			.concatMap(rule -> check(rule, server, caller, deadline))
			.takeUntil(check -> check.refusal() != null)
			.collectList()
			.flatMap(checks -> {
				Check last = checks.get(checks.size() - 1);
				if (last.refusal() == null) {
					return Outcome.proceed();
				}
				return refund(checks, server, caller).then(decide(last, server));
			});
	}

	/** Proceeds, or refuses with {@code check}'s refusal, counted under its rule when it is one of the limit's. */
	private Mono<Outcome> decide(Check check, String server) {
		if (check.refusal() == null) {
			return Outcome.proceed();
		}
		if (check.exhausted()) {
			counters.increment(RelayMeters.RATE_LIMIT_REJECTIONS, REJECTIONS, RelayMeters.RULE, check.rule().name(),
					RelayMeters.SERVER, server);
		}
		return Outcome.reject(check.refusal());
	}

	/**
	 * The outcome of one rule's check: whether it took a token, and its refusal when it has none (or cannot tell and
	 * fails closed).
	 */
	private record Check(RateLimitRule rule, boolean took, RejectError refusal) {

		/** Whether the rule had no token left (not: its store could not tell). */
		boolean exhausted() {
			return refusal != null && !took && "rate_limited".equals(refusal.data().path("reason").asText());
		}

	}

	/**
	 * Takes a token of {@code rule}'s bucket within what is left of {@code deadline}; the refusal when it has none (or
	 * its store is away and it fails closed).
	 */
	private Mono<Check> check(RateLimitRule rule, String server, String caller, CheckDeadline deadline) {
		return buckets.tryConsume(rule.key(server, caller), rule.bucket(), deadline)
			.map(probe -> probe.isConsumed() ? new Check(rule, true, null)
					: new Check(rule, false, RateLimitRefusals.exhausted(rule, probe)))
			.onErrorResume(error -> {
				storeFailed(rule, error);
				return Mono.just(new Check(rule, false, rule.failsClosed() ? RateLimitRefusals.unavailable(rule) : null));
			});
	}

	/**
	 * A request a later rule refused spends nothing: the tokens the earlier rules took for it are given back before it
	 * is answered, within a bound of their own ({@link #REFUND_BOUND}), however much of the check's the rules used (a
	 * refund that fails, or does not answer in time, costs the caller that one token).
	 */
	private Mono<Void> refund(List<Check> checks, String server, String caller) {
		CheckDeadline deadline = new CheckDeadline(REFUND_BOUND);
		return Flux.fromIterable(checks)
			.filter(Check::took)
			.flatMap(check -> buckets.refund(check.rule().key(server, caller), check.rule().bucket(), deadline)
				.onErrorResume(error -> {
					log.debug("A token of rule {} could not be given back: {}", check.rule().name(), error.toString());
					return Mono.empty();
				}))
			.then();
	}

	private void storeFailed(RateLimitRule rule, Throwable error) {
		counters.increment(RelayMeters.RATE_LIMIT_STORE_ERRORS, STORE_ERRORS, RelayMeters.RULE, rule.name());
		long now = System.nanoTime();
		long last = lastStoreWarning.get();
		if (now - last >= LOG_INTERVAL_NANOS && lastStoreWarning.compareAndSet(last, now)) {
			// a check held for a master switch says so, not a bare timeout that reads as Redis not answering
			log.warn("Rate limits could not use their store: requests are let through unlimited (rules with "
					+ "on-store-failure: fail-closed refuse them): {}",
					error instanceof StoreHeldException ? error.getMessage() : error.toString());
		}
	}

	/** Whose budget a {@code per: client} rule draws from: the caller's id, or one shared anonymous budget. */
	private static String callerKey(Caller caller) {
		return caller.id() == null ? "-" : caller.kind().name() + ":" + caller.id();
	}

}
