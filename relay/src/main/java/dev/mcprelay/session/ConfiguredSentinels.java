package dev.mcprelay.session;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.codec.StringCodec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Sentinels of {@code spring.data.redis.sentinel.nodes} as Spring Data Redis connects to them (their credentials,
 * TLS, and the client's command timeout, 2 s unless {@code spring.data.redis.timeout} is set), in the order Lettuce
 * asks them for the master, and that question ({@link #namedMaster}) asked as Lettuce asks it, without holding a
 * thread while a Sentinel is waited for. Used by {@link SentinelMasterSwitches}; holds no state of its own.
 */
final class ConfiguredSentinels {

	private static final Logger log = LoggerFactory.getLogger(ConfiguredSentinels.class);

	private final LettuceConnectionFactory redis;

	ConfiguredSentinels(LettuceConnectionFactory redis) {
		this.redis = redis;
	}

	/** Each Sentinel as a URI of its own, in the order of {@code nodes}, each with the client's command timeout. */
	List<RedisURI> each() {
		LettuceClientConfiguration client = redis.getClientConfiguration();
		RedisURI uri = LettuceConverters.sentinelConfigurationToRedisURI(redis.getSentinelConfiguration());
		for (RedisURI sentinel : uri.getSentinels()) {
			sentinel.setSsl(client.isUseSsl());
			sentinel.setVerifyPeer(client.getVerifyMode());
			sentinel.setStartTls(client.isStartTls());
			sentinel.setTimeout(client.getCommandTimeout());
		}
		return uri.getSentinels();
	}

	/**
	 * The {@code host:port} of {@code master} as the first Sentinel that answers names it, which is where Lettuce
	 * connects the next connection to. The Sentinels are asked one at a time in the order of {@link #each}, each within
	 * its timeout (its connection's handshake and its answer together), the next when one fails or does not answer in
	 * time (as Lettuce goes on to the next when a handshake times out; a WARN names the Sentinel left and why: for one
	 * that did not answer, its bound, not Redis's, so that a hung Sentinel is told from a hung master). Empty when
	 * none answers, so at most one timeout per Sentinel. Never fails. Each connection is opened off the event loops (as
	 * connecting may block) on {@code client}, which must not reconnect on its own ({@link SentinelSubscription#ownClient}),
	 * and nothing waits for an answer: it is signalled on Lettuce's or the timeout's thread.
	 */
	Mono<String> namedMaster(RedisClient client, String master) {
		return namedMaster(client, each(), master);
	}

	/**
	 * {@link #namedMaster(RedisClient, String)} of {@code sentinels}. Each question's connection is closed whatever
	 * happens: also one whose handshake completes after the question gave it up (its timeout, or the caller's
	 * cancelling), which used to stay open for ever, kept alive by Lettuce's reconnection (review 45h H-4).
	 */
	static Mono<String> namedMaster(RedisClient client, List<RedisURI> sentinels, String master) {
		return Flux.fromIterable(sentinels)
			.concatMap(sentinel -> Mono.usingWhen(connected(client, sentinel),
					connection -> connection.reactive().getMasterAddrByName(master)
						.cast(InetSocketAddress.class)
						.map(named -> named.getHostString() + ':' + named.getPort()),
					connection -> Mono.fromCompletionStage(connection.closeAsync()))
				.subscribeOn(OffEventLoop.SCHEDULER)
				.timeout(sentinel.getTimeout())
				.onErrorResume(error -> {
					log.warn("Sentinel {}:{} did not name the master of '{}' ({}): the next of "
							+ "spring.data.redis.sentinel.nodes, if any, is asked", sentinel.getHost(), sentinel.getPort(),
							master, why(error, sentinel));
					return Mono.empty();
				}), 1)
			.next();
	}

	/**
	 * A connection to {@code sentinel}; cancelled before it is open, the connection is closed once it opens (the
	 * connecting itself is not cancelled: Lettuce would complete it all the same, unseen).
	 */
	private static Mono<StatefulRedisSentinelConnection<String, String>> connected(RedisClient client,
			RedisURI sentinel) {
		return Mono.defer(() -> {
			CompletableFuture<StatefulRedisSentinelConnection<String, String>> connecting = client
				.connectSentinelAsync(StringCodec.UTF8, sentinel)
				.toCompletableFuture();
			return Mono.fromFuture(connecting, true)
				.doOnCancel(() -> connecting.thenAccept(StatefulConnection::closeAsync));
		});
	}

	/**
	 * Why {@code sentinel} named no master: for its silence (this question's bound, or Lettuce's handshake timeout),
	 * that bound; else its refusal and what to check ({@link FollowedSentinels#reason}).
	 */
	private static String why(Throwable error, RedisURI sentinel) {
		for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
				return "no answer within " + sentinel.getTimeout().toMillis() + " ms: a stopped, overloaded or unreachable "
						+ "Sentinel";
			}
		}
		return FollowedSentinels.reason(error);
	}

}
