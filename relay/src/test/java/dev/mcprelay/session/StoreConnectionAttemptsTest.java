package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TestUpstreams;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A connection to the store that the relay is opening when it stops is finished before Spring Data Redis shuts its
 * Lettuce client down: a connection started while the client's event loops end (they end with a quiet period of 0)
 * can register its channel after the loop closed its channels for the last time, and then Lettuce's
 * {@code CommandHandler} never releases the buffer it allocated for it (NettyLeakCheckExtension fails the class). Here
 * the store's channel is subscribed to again on a new connection (as after a failover) while Redis is stopped
 * (SIGSTOP: the connection is accepted, its handshake not answered), and the relay is closed meanwhile.
 */
class StoreConnectionAttemptsTest {

	private static final String CHANNEL = "mcp-relay:virtual-streams";

	@Test
	void aConnectionBeingOpenedWhenTheRelayStopsIsFinishedBeforeSpringDataRedisStopsItsClient() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			ConfigurableApplicationContext relay = relay(redis.port());
			CompletableFuture<Void> closing = null;
			try {
				await().atMost(Duration.ofSeconds(30))
					.until(() -> RedisWire.call(redis.port(), "PUBSUB", "NUMSUB", CHANNEL)
						.equals(List.of(CHANNEL, 1L)));
				StoreConnectionAttempts attempts = relay.getBean(StoreConnectionAttempts.class);
				LettuceConnectionFactory factory = relay.getBean(LettuceConnectionFactory.class);
				int mark = CapturedLogs.all().size();

				redis.freeze();
				relay.publishEvent(new StoreMasterSwitched("mymaster", "127.0.0.1:" + redis.port()));
				await().atMost(Duration.ofSeconds(30)).until(() -> attempts.underWay() == 1);

				closing = CompletableFuture.runAsync(relay::close);
				await().atMost(Duration.ofSeconds(30)).until(() -> !attempts.isRunning());
				// the attempt is held by the stopped Redis (for up to the connect timeout, 120 s): Spring Data Redis
				// must not stop its client meanwhile
				await().during(Duration.ofSeconds(5))
					.atMost(Duration.ofSeconds(6))
					.until(() -> factory.isRunning() && attempts.underWay() == 1);

				redis.thaw();
				closing.get(60, TimeUnit.SECONDS);
				assertThat(attempts.underWay()).isZero();
				assertThat(factory.isRunning()).isFalse();
				assertThat(CapturedLogs.since(mark)).as("the relay stopping is no lost subscription")
					.noneMatch(line -> line.contains("is no longer listened to"));
			}
			finally {
				redis.thaw();
				if (closing == null) {
					relay.close();
				}
			}
		}
	}

	@Test
	void onceStoppedNoAttemptStartsAndTheStopCompletesWhenTheLastOneUnderWaySettles() {
		StoreConnectionAttempts attempts = attempts();
		attempts.start();
		Sinks.One<String> connecting = Sinks.one();
		AtomicReference<String> opened = new AtomicReference<>();
		attempts.open(connecting.asMono(), discarded -> {
		}).subscribe(opened::set);
		AtomicBoolean stopped = new AtomicBoolean();
		attempts.stop(() -> stopped.set(true));

		assertThat(stopped).as("stopped while an attempt is under way").isFalse();
		AtomicBoolean started = new AtomicBoolean();
		assertThatThrownBy(() -> attempts.open(Mono.fromCallable(() -> started.getAndSet(true)), discarded -> {
		}).block()).isInstanceOf(StoreConnectionAttempts.Refused.class);
		assertThat(started).as("an attempt refused is not started").isFalse();

		connecting.tryEmitValue("connection");
		assertThat(opened).hasValue("connection");
		assertThat(stopped).isTrue();
		assertThat(attempts.underWay()).isZero();
	}

	@Test
	void anAttemptRunsToItsEndWhenItsSubscriberLeavesAndWhatItOpensThenIsClosed() {
		StoreConnectionAttempts attempts = attempts();
		Sinks.One<String> connecting = Sinks.one();
		List<String> discarded = new CopyOnWriteArrayList<>();
		attempts.open(connecting.asMono(), discarded::add).subscribe().dispose();

		assertThat(attempts.underWay()).as("still under way after its subscriber left").isEqualTo(1);
		assertThat(connecting.currentSubscriberCount()).as("not cancelled").isEqualTo(1);
		connecting.tryEmitValue("connection");
		assertThat(discarded).containsExactly("connection");
		assertThat(attempts.underWay()).isZero();

		List<String> kept = new CopyOnWriteArrayList<>();
		assertThat(attempts.open(Mono.just("handed over"), kept::add).block()).isEqualTo("handed over");
		assertThat(kept).as("what was handed over is not closed").isEmpty();
	}

	/**
	 * On a Redis Cluster, Lettuce's own topology refresh opens connections too (HungMasterOverRedisClusterTest leaked
	 * one's buffer at shutdown): the stop suspends refreshes and completes only once the one in progress ended.
	 */
	@Test
	void aClusterTopologyRefreshInProgressIsSuspendedAndWaitedForBeforeTheStopCompletes() {
		AtomicBoolean refreshing = new AtomicBoolean(true);
		AtomicBoolean suspended = new AtomicBoolean();
		RedisClusterClient cluster = new RedisClusterClient() {

			@Override
			public boolean isTopologyRefreshInProgress() {
				return refreshing.get();
			}

			@Override
			public void suspendTopologyRefresh() {
				suspended.set(true);
			}

		};
		LettuceConnectionFactory factory = new LettuceConnectionFactory() {

			@Override
			public AbstractRedisClient getNativeClient() {
				return cluster;
			}

		};
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		beans.addBean("redis", factory);
		StoreConnectionAttempts attempts = new StoreConnectionAttempts(
				beans.getBeanProvider(LettuceConnectionFactory.class));
		attempts.start();
		AtomicBoolean stopped = new AtomicBoolean();
		attempts.stop(() -> stopped.set(true));

		assertThat(suspended).as("no refresh starts once the relay stops").isTrue();
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).untilFalse(stopped);
		refreshing.set(false);
		await().atMost(Duration.ofSeconds(5)).untilTrue(stopped);
	}

	private static StoreConnectionAttempts attempts() {
		return new StoreConnectionAttempts(new StaticListableBeanFactory().getBeanProvider(LettuceConnectionFactory.class));
	}

	private static ConfigurableApplicationContext relay(int redisPort) {
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run("--server.port=0",
				"--server.address=127.0.0.1", "--mcp-relay.security.mode=none", "--mcp-relay.sessions.store=redis",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--spring.data.redis.connect-timeout=120s", "--spring.data.redis.timeout=120s",
				"--mcp-relay.servers.sdk.url=" + TestUpstreams.SDK.url("/stateless"));
	}

}
