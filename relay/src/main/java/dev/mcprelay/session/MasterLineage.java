package dev.mcprelay.session;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.OffEventLoop;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import reactor.core.publisher.Mono;

/**
 * What the relay saw of the replication lineage of the master its store's connections follow, and whether another
 * node proves it is this deployment's master (review 45l L-1: one Sentinel's later configuration epoch moved a relay
 * onto another deployment's Redis, or onto a replica). Read with the store's own credentials on a connection of its own
 * ({@code INFO replication}: its {@code role} is what {@code ROLE} answers), closed whatever happens, within the
 * client's command timeout; the answer is handed on off the event loops.
 * <ul>
 * <li>{@link #read}: after the connections went to a master, its {@code master_replid} and the replicas it lists are
 * remembered (nothing is forgotten when it does not answer: the last read stays).</li>
 * <li>{@link #refusal}: a node proves it is this deployment's master when it answers {@code ROLE} as master and its
 * {@code master_replid} or {@code master_replid2} is the replid last read (a promoted replica keeps its old master's as
 * {@code master_replid2}), or it was listed as a replica of that master. Otherwise why not (no secret in it).</li>
 * </ul>
 * Never fails; a node that does not answer proves nothing.
 */
final class MasterLineage {

	private static final Logger log = LoggerFactory.getLogger(MasterLineage.class);

	/** What was read of the master followed: its replid and the {@code host:port} of its replicas. */
	record Seen(String address, String replid, Set<String> replicas) {
	}

	private final Function<String, RedisURI> uriOf;

	private final AtomicReference<Seen> followed = new AtomicReference<>();

	/** @param uriOf the URI of a data node at {@code host:port}, with the store's credentials and timeout */
	MasterLineage(Function<String, RedisURI> uriOf) {
		this.uriOf = uriOf;
	}

	/** The data nodes of {@code redis}'s Sentinel configuration, reached as its store connections are. */
	static MasterLineage of(LettuceConnectionFactory redis) {
		LettuceClientConfiguration client = redis.getClientConfiguration();
		RedisSentinelConfiguration sentinel = redis.getSentinelConfiguration();
		return new MasterLineage(address -> {
			RedisURI.Builder builder = RedisURI.builder().withHost(host(address)).withPort(port(address));
			sentinel.getPassword().toOptional().ifPresent(password -> {
				if (sentinel.getUsername() != null) {
					builder.withAuthentication(sentinel.getUsername(), password);
				}
				else {
					builder.withPassword(password);
				}
			});
			RedisURI uri = builder.build();
			uri.setSsl(client.isUseSsl());
			uri.setVerifyPeer(client.getVerifyMode());
			uri.setStartTls(client.isStartTls());
			uri.setTimeout(client.getCommandTimeout());
			return uri;
		});
	}

	/** Data nodes without credentials (tests). */
	static MasterLineage withoutCredentials() {
		return new MasterLineage(address -> RedisURI.create(host(address), port(address)));
	}

	/** What was last read of the master followed; null while nothing was. */
	Seen seen() {
		return followed.get();
	}

	/** Reads {@code address}'s lineage if it answers as a master, and remembers it. Never fails. */
	Mono<Void> read(RedisClient client, String address) {
		return replication(client, address)
			.filter(info -> "master".equals(info.get("role")))
			.doOnNext(info -> {
				Seen seen = new Seen(address, info.getOrDefault("master_replid", ""), replicas(info));
				followed.set(seen);
				log.debug("Read the replication of {}, the master followed: replid {}, replicas {}", address,
						seen.replid(), seen.replicas());
			})
			.then();
	}

	/**
	 * Empty when {@code target} proves it is this deployment's master (see the class); else why not. Nothing read of the
	 * master followed yet proves nothing.
	 */
	Mono<String> refusal(RedisClient client, String target) {
		Seen seen = followed.get();
		if (seen == null) {
			return Mono.just("the relay read nothing yet of the replication of the master it follows");
		}
		return replication(client, target)
			.map(info -> {
				if (!"master".equals(info.get("role"))) {
					return Optional.of(target + " answers as a " + info.getOrDefault("role", "node of unknown role")
							+ ", not a master");
				}
				if (seen.replicas().contains(target) || (!seen.replid().isEmpty()
						&& (seen.replid().equals(info.get("master_replid"))
								|| seen.replid().equals(info.get("master_replid2"))))) {
					log.debug("{} proves it is this deployment's master: listed as a replica of {}: {}; its master_replid "
							+ "{}, master_replid2 {}; the replid read of {}: {}", target, seen.address(),
							seen.replicas().contains(target), info.get("master_replid"), info.get("master_replid2"),
							seen.address(), seen.replid());
					return Optional.<String>empty();
				}
				return Optional.of(target + "'s replication history is not that of " + seen.address() + " (another "
						+ "replid, and not listed as its replica): not this deployment's master");
			})
			.defaultIfEmpty(Optional.of(target + " did not answer INFO replication (grant the store's user +info, "
					+ "docs/operations.md)"))
			.flatMap(Mono::justOrEmpty);
	}

	/** {@code INFO replication} of {@code address} as its fields; empty when it does not answer. */
	private Mono<java.util.Map<String, String>> replication(RedisClient client, String address) {
		RedisURI uri = uriOf.apply(address);
		return Mono.usingWhen(connected(client, uri),
				connection -> connection.reactive().info("replication").map(MasterLineage::fields),
				connection -> Mono.fromCompletionStage(connection.closeAsync()))
			.subscribeOn(OffEventLoop.SCHEDULER)
			.timeout(uri.getTimeout())
			.onErrorResume(error -> Mono.empty())
			// what follows (a move closes the store's connections, which may block) never runs on an event loop
			.publishOn(OffEventLoop.SCHEDULER);
	}

	private static Mono<StatefulRedisConnection<String, String>> connected(RedisClient client, RedisURI uri) {
		return Mono.defer(() -> {
			CompletableFuture<StatefulRedisConnection<String, String>> connecting = client
				.connectAsync(StringCodec.UTF8, uri)
				.toCompletableFuture();
			return Mono.fromFuture(connecting, true)
				.doOnCancel(() -> connecting.thenAccept(StatefulConnection::closeAsync));
		});
	}

	static java.util.Map<String, String> fields(String info) {
		java.util.Map<String, String> fields = new java.util.HashMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	/** The replicas an {@code INFO replication} of a master lists ({@code slaveN:ip=...,port=...,...}). */
	private static Set<String> replicas(java.util.Map<String, String> info) {
		Set<String> replicas = new HashSet<>();
		info.forEach((key, value) -> {
			if (key.matches("slave\\d+")) {
				String ip = null;
				String port = null;
				for (String pair : List.of(value.split(","))) {
					if (pair.startsWith("ip=")) {
						ip = pair.substring(3);
					}
					else if (pair.startsWith("port=")) {
						port = pair.substring(5);
					}
				}
				if (ip != null && port != null) {
					replicas.add(ip + ':' + port);
				}
			}
		});
		return replicas;
	}

	private static String host(String address) {
		return address.substring(0, address.lastIndexOf(':'));
	}

	private static int port(String address) {
		return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
	}

}
