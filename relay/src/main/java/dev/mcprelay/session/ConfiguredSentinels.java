package dev.mcprelay.session;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
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
 * thread while a Sentinel is waited for, and the same question asked of all of them, their answers weighed
 * ({@link #weighedMaster}). Used by {@link SentinelMasterSwitches} and its {@link MasterCatchUp}. Its only state is
 * which Sentinels did not answer the last time they were asked: a Sentinel that names no master is logged at WARN
 * once, when it stops answering, not at every question (review 45i I-1: ~60 WARNs a second while none could be
 * reached), and again only after it answered in between.
 */
final class ConfiguredSentinels {

	private static final Logger log = LoggerFactory.getLogger(ConfiguredSentinels.class);

	private final Supplier<List<RedisURI>> each;

	/** The Sentinels ({@code host:port}) whose failure to answer was logged, until they answer again. */
	private final Set<String> silent = ConcurrentHashMap.newKeySet();

	/** The Sentinels ({@code host:port}) whose refusal of {@code SENTINEL MASTER} was logged, until they run it. */
	private final Set<String> masterRefused = ConcurrentHashMap.newKeySet();

	ConfiguredSentinels(LettuceConnectionFactory redis) {
		this(() -> each(redis));
	}

	/** The Sentinels {@code each} gives, in its order (a test's). */
	ConfiguredSentinels(Supplier<List<RedisURI>> each) {
		this.each = each;
	}

	/** Each Sentinel as a URI of its own, in the order of {@code nodes}, each with the client's command timeout. */
	List<RedisURI> each() {
		return each.get();
	}

	private static List<RedisURI> each(LettuceConnectionFactory redis) {
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
		return namedMaster(client, each(), master, silent);
	}

	/**
	 * The Sentinels' verdict on {@code master}, all of them asked at once, each within its timeout, their answers weighed
	 * ({@link MasterVerdict}: the latest configuration, the highest {@code config-epoch} of {@code SENTINEL MASTER}, else
	 * what most of those that answered name), with how many were asked. Asked when the first Sentinel's answer is not
	 * the relay's own evidence (review 45i I-4: one stale Sentinel listed first moved a relay on the right master onto a
	 * replica). A Sentinel whose user may not run {@code SENTINEL MASTER} is asked {@code GET-MASTER-ADDR-BY-NAME}
	 * instead, its answer counted without an epoch; its refusal is logged at WARN once per Sentinel (until it runs it),
	 * naming the grant (review 45j J-1: only in the Sentinels' ACL LOG). Never fails; logs as {@link #namedMaster} does.
	 */
	Mono<MasterVerdict> weighedMaster(RedisClient client, String master) {
		List<RedisURI> asked = each();
		return Flux.fromIterable(asked)
			.flatMap(sentinel -> asked(client, sentinel, connection -> described(connection, sentinel, master), master,
					silent))
			.collectList()
			.map(answers -> new MasterVerdict(answers, asked.size()));
	}

	/**
	 * The first Sentinel that answers, asked as {@link #namedMaster(RedisClient, String)} asks (the master Lettuce
	 * connects to), but {@code SENTINEL MASTER} where its user may, so that the answer carries the configuration epoch
	 * the store's connections follow ({@link MasterEvidence}; review 45k K-1). Empty when none answers; never fails.
	 */
	Mono<MasterVerdict.Answer> firstAnswer(RedisClient client, String master) {
		return Flux.fromIterable(each())
			.concatMap(sentinel -> asked(client, sentinel, connection -> described(connection, sentinel, master), master,
					silent), 1)
			.next();
	}

	/**
	 * {@code sentinel}'s answer: {@code SENTINEL MASTER}, its epoch included; refused that ({@code NOPERM}), {@code
	 * GET-MASTER-ADDR-BY-NAME} without an epoch, the refusal logged at WARN once per Sentinel until it runs it.
	 */
	private Mono<MasterVerdict.Answer> described(StatefulRedisSentinelConnection<String, String> connection,
			RedisURI sentinel, String master) {
		return connection.reactive().master(master)
			.map(described -> MasterVerdict.answer(described).from(address(sentinel)))
			.doOnNext(described -> masterRefused.remove(address(sentinel)))
			.onErrorResume(RedisCommandExecutionException.class, refused -> {
				if (String.valueOf(refused.getMessage()).startsWith("NOPERM") && masterRefused.add(address(sentinel))) {
					log.warn("Sentinel {} refused SENTINEL MASTER ({}): its answer carries no configuration epoch, so "
							+ "Sentinels that disagree (one of them stale) decide nothing; grant its user "
							+ "+sentinel|master (docs/operations.md; not logged again for it until it answers)",
							address(sentinel), refused.getMessage());
				}
				return connection.reactive().getMasterAddrByName(master)
					.cast(InetSocketAddress.class)
					.map(named -> new MasterVerdict.Answer(named.getHostString() + ':' + named.getPort(),
							MasterVerdict.NO_EPOCH, address(sentinel)));
			});
	}

	private static String address(RedisURI sentinel) {
		return sentinel.getHost() + ':' + sentinel.getPort();
	}

	/**
	 * {@link #namedMaster(RedisClient, String)} of {@code sentinels}. Each question's connection is closed whatever
	 * happens: also one whose handshake completes after the question gave it up (its timeout, or the caller's
	 * cancelling), which used to stay open for ever, kept alive by Lettuce's reconnection (review 45h H-4).
	 */
	static Mono<String> namedMaster(RedisClient client, List<RedisURI> sentinels, String master) {
		return namedMaster(client, sentinels, master, ConcurrentHashMap.newKeySet());
	}

	/** {@link #namedMaster(RedisClient, List, String)}, a failure logged at WARN only if {@code silent} had not. */
	private static Mono<String> namedMaster(RedisClient client, List<RedisURI> sentinels, String master,
			Set<String> silent) {
		return Flux.fromIterable(sentinels)
			.concatMap(sentinel -> asked(client, sentinel, connection -> connection.reactive().getMasterAddrByName(master)
				.cast(InetSocketAddress.class)
				.map(named -> named.getHostString() + ':' + named.getPort()), master, silent), 1)
			.next();
	}

	/**
	 * {@code question} asked of {@code sentinel} on a connection of its own, closed whatever happens, within the
	 * Sentinel's timeout; empty when it fails or times out, logged at WARN unless {@code silent} says it was already
	 * (then at DEBUG), and {@code silent} told when it answers.
	 */
	private static <T> Mono<T> asked(RedisClient client, RedisURI sentinel,
			java.util.function.Function<StatefulRedisSentinelConnection<String, String>, Mono<T>> question,
			String master, Set<String> silent) {
		String address = sentinel.getHost() + ':' + sentinel.getPort();
		return Mono.usingWhen(connected(client, sentinel), question,
				connection -> Mono.fromCompletionStage(connection.closeAsync()))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.timeout(sentinel.getTimeout())
			.doOnNext(answered -> silent.remove(address))
			.onErrorResume(error -> {
				if (silent.add(address)) {
					log.warn("Sentinel {} did not name the master of '{}' ({}): the next of "
							+ "spring.data.redis.sentinel.nodes, if any, is asked (not logged again for it until it "
							+ "answers)", address, master, why(error, sentinel));
				}
				else {
					log.debug("Sentinel {} did not name the master of '{}' ({})", address, master, why(error, sentinel));
				}
				return Mono.empty();
			});
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
