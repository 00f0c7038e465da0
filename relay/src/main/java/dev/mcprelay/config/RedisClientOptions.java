package dev.mcprelay.config;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.Delay;

/**
 * How the relay's Redis client (shared state: rate-limit buckets, sessions) behaves while Redis is away or failing
 * over.
 * <ul>
 * <li>Commands are refused at once instead of being buffered until it comes back. The relay bounds every Redis call
 * and carries on without it (rate limits by their {@code on-store-failure}, sessions answered 503
 * {@code session_store_unavailable}), so an answer now is worth more than an answer later; and Lettuce 6.6 can leave
 * a buffered write's lock count behind when a connection drops mid-write, after which closing the client spins
 * forever (lettuce issue 3880): a relay that lost Redis could then never shut down.</li>
 * <li>A lost connection is tried again at most {@link #MAX_RECONNECT_DELAY} apart (Lettuce's default backs off to
 * 30 s): through Sentinel each attempt asks the Sentinels for the master, so a relay reaches a promoted replica within
 * about that delay of its promotion, however long the failover took.</li>
 * <li>On a Cluster, Lettuce refreshes its view of the topology when a command meets a redirection or a node's
 * connection keeps failing (its adaptive triggers, all of them), at most every {@link #ADAPTIVE_REFRESH_TIMEOUT}:
 * without a refresh, a master's slots stay on its dead connection after its replica took them, and a third of the
 * sessions stay unavailable for good. Lettuce 7 turns the triggers on by default, every 5 s; the relay turns them on
 * whatever the version, and sooner. A master that hangs (a stopped process, a frozen VM) instead of dying fires no
 * trigger: its connection stays open and commands to it only time out, so the relay also refreshes the topology every
 * {@link #PERIODIC_REFRESH} (unless {@code spring.data.redis.lettuce.cluster.refresh.period} sets another period),
 * which moves the hung master's slots to the replica the Cluster promoted. {@code dynamic-refresh-sources} applies as
 * set. A refresh opens a connection to every node it knows and asks them all, and waits for each up to the client's
 * command timeout, the hung master too: with Lettuce's default of 60 s one refresh in flight when the master hung
 * kept every later one from starting (they are skipped while one runs) for a minute. On a Cluster, unless
 * {@code spring.data.redis.timeout} is set, that timeout is {@link #CLUSTER_COMMAND_TIMEOUT}, so a refresh costs a
 * hung node that long at most; the relay's own bounds on a store call (1 s) and a rate-limit check are shorter
 * anyway.</li>
 * <li>Through Sentinel, unless {@code spring.data.redis.timeout} is set, the same {@link #CLUSTER_COMMAND_TIMEOUT}
 * bounds a new connection's handshake with each Sentinel and its {@code SENTINEL GET-MASTER-ADDR-BY-NAME}: Lettuce asks
 * the Sentinels in the order of {@code spring.data.redis.sentinel.nodes} and goes on to the next one only when one
 * fails, so with Lettuce's 60 s a Sentinel that accepts connections but does not answer (a stopped process, a frozen
 * VM) kept every reconnection, and the relay's own question after a {@code +switch-master}, waiting a minute: a
 * graceful failover then lost the sessions written to the old master and left the store unusable for 61 s.</li>
 * <li>Through Sentinel, Lettuce asks the Sentinels for the master whenever it connects, and the connections follow
 * the master the Sentinels name through {@code dev.mcprelay.session.SentinelMasterSwitches}, which listens for their
 * {@code +switch-master} and opens them again. The relay does not ask for Lettuce's {@code MasterReplica} (which
 * Spring Data Redis uses when {@code spring.data.redis.lettuce.read-from} is set): a new one pings every server the
 * Sentinels list before it is usable, so one opened while the old master hangs waits for that master's timeout, and it
 * moves to a new master 5 s after the first event of a failover, while a graceful failover's old master takes (and
 * later throws away) writes.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class RedisClientOptions {

	/** The longest wait between two attempts to reconnect to Redis. */
	static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

	/**
	 * How often the Cluster's topology is refreshed when {@code spring.data.redis.lettuce.cluster.refresh.period} is
	 * not set: one {@code CLUSTER NODES} to each node per period and relay.
	 */
	static final Duration PERIODIC_REFRESH = Duration.ofSeconds(2);

	/** The shortest time between two Cluster topology refreshes an adaptive trigger starts. */
	static final Duration ADAPTIVE_REFRESH_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * How long a command, a new connection's handshake and a topology refresh's question wait for a Cluster node, and
	 * a Sentinel's handshake and answer wait for that Sentinel, when {@code spring.data.redis.timeout} is not set
	 * (Lettuce's default is 60 s).
	 */
	static final Duration CLUSTER_COMMAND_TIMEOUT = Duration.ofSeconds(2);

	@Bean
	LettuceClientConfigurationBuilderCustomizer boundEachNodesWait(ObjectProvider<DataRedisConnectionDetails> connection,
			ObjectProvider<DataRedisProperties> properties) {
		return builder -> {
			DataRedisConnectionDetails details = connection.getIfAvailable();
			DataRedisProperties set = properties.getIfAvailable();
			if (details != null && (details.getCluster() != null || details.getSentinel() != null)
					&& (set == null || set.getTimeout() == null)) {
				builder.commandTimeout(CLUSTER_COMMAND_TIMEOUT);
			}
		};
	}

	@Bean
	LettuceClientConfigurationBuilderCustomizer rejectCommandsWhileDisconnected() {
		return builder -> {
			ClientOptions current = builder.build().getClientOptions().orElseGet(ClientOptions::create);
			if (current instanceof ClusterClientOptions cluster) {
				builder.clientOptions(cluster.mutate()
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
					.topologyRefreshOptions(adaptive(cluster.getTopologyRefreshOptions()))
					.build());
				return;
			}
			builder.clientOptions(current.mutate()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
		};
	}

	@Bean
	ClientResourcesBuilderCustomizer reconnectAtLeastEverySecond() {
		return resources -> resources.reconnectDelay(Delay.exponential(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 2,
				TimeUnit.MILLISECONDS));
	}

	/**
	 * {@code current} with every adaptive trigger on, at most every {@link #ADAPTIVE_REFRESH_TIMEOUT}, and a periodic
	 * refresh: the period {@code current} has, else {@link #PERIODIC_REFRESH}.
	 */
	static ClusterTopologyRefreshOptions adaptive(ClusterTopologyRefreshOptions current) {
		return ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_TIMEOUT)
			.enablePeriodicRefresh(current.isPeriodicRefreshEnabled() ? current.getRefreshPeriod() : PERIODIC_REFRESH)
			.dynamicRefreshSources(current.useDynamicRefreshSources())
			.closeStaleConnections(current.isCloseStaleConnections())
			.refreshTriggersReconnectAttempts(current.getRefreshTriggersReconnectAttempts())
			.build();
	}

}
