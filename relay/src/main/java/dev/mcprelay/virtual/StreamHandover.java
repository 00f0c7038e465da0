package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import dev.mcprelay.session.StoreChannels;
import reactor.core.publisher.Mono;

/**
 * Hands a virtual session's member streams to the replica that took the client's GET (several replicas over Redis, no
 * affinity): that replica {@link #claim claims} the session on a Redis channel, and the replica that held its streams
 * (since the join, or since an earlier GET) lets them go ({@link MergedStreams#released}), so that the members, which
 * take one stream per session, open theirs to the claiming replica, and what they send reaches the client's GET
 * wherever it landed. The channel carries the SHA-256 of the virtual server and session ids, never a session id, and
 * the claiming replica's own id, so that a replica never releases what it claimed itself.
 *
 * <p>With {@code sessions.store: memory} there is one replica and nothing to hand over: claims go nowhere. A claim that
 * cannot be published (Redis down) is logged at DEBUG and the GET is served as before: the members refuse the second
 * stream until the holder lets go ({@link ClientStream#WAIT} without a client GET there). The channel is listened to
 * through {@link StoreChannels}: from when the relay is ready, again whenever Redis drops it, and on the new master
 * whenever the Sentinels name one (claims are published on the master, through Spring Data Redis's shared connection,
 * which follows the new master too).
 */
@Component
class StreamHandover {

	private static final Logger log = LoggerFactory.getLogger(StreamHandover.class);

	/** The channel every replica listens on. */
	static final String CHANNEL = "mcp-relay:virtual-streams";

	private final String replica = UUID.randomUUID().toString();

	private final ReactiveStringRedisTemplate redis;

	private final Mono<Void> listening;

	private volatile Consumer<String> onClaimed = digest -> {
	};

	StreamHandover(RelayProperties properties, ObjectProvider<ReactiveStringRedisTemplate> redis,
			StoreChannels channels) {
		this.redis = properties.sessions().store() == SessionStoreKind.REDIS ? redis.getIfAvailable() : null;
		this.listening = this.redis == null ? Mono.empty() : channels.listen(CHANNEL, this::received);
	}

	/** {@code released} is told the digest ({@link #digest}) of every session another replica claimed. */
	void onClaimed(Consumer<String> released) {
		this.onClaimed = released;
	}

	/** Completes once this replica hears claims (at once with no Redis: there is nobody to hear); for tests. */
	Mono<Void> listening() {
		return listening;
	}

	/**
	 * This replica took the client's GET of the virtual session {@code digest} ({@link #digest}) and holds no stream of
	 * it: the replica that does lets its streams go.
	 */
	void claim(String digest) {
		if (redis == null) {
			return;
		}
		redis.convertAndSend(CHANNEL, replica + ' ' + digest)
			.subscribe(null, error -> log.debug("A virtual session's streams could not be claimed: {}", error.toString()));
	}

	private void received(String message) {
		int space = message.indexOf(' ');
		if (space < 0 || message.substring(0, space).equals(replica)) {
			return;
		}
		onClaimed.accept(message.substring(space + 1));
	}

	/** The digest of virtual server {@code virtualId}'s session {@code sessionId}: what the channel names it by. */
	static String digest(String virtualId, String sessionId) {
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256")
				.digest((virtualId + '\n' + sessionId).getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(hash);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
		}
	}

}
