package dev.mcprelay.session;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.OffEventLoop;
import reactor.core.publisher.Mono;

/**
 * A write through the store's shared connections that changes nothing: {@code DEL} of {@value #KEY}, a key the relay
 * never sets, among the session keys (a session's is {@code mcp-relay:session:{<server>:<hash>}}), so a store user
 * limited to the key patterns docs/operations.md lists may run it (review 45j J-2: outside them, a user given only
 * those patterns was refused NOPERM, read as writes still refused, and the relay stayed unready for good). A master answers
 * it; a replica refuses it {@code READONLY}. {@link MasterCatchUp} checks with it that the store takes writes again
 * after it moved the connections (review 45i I-4: a move was taken for writes taken). Opening the connection may block,
 * so it runs off the event loops; each check fails as the store does.
 */
final class StoreWriteCheck implements Supplier<Mono<Void>> {

	/** The key deleted: never set by the relay. */
	static final String KEY = "mcp-relay:session:{write-check}";

	/** Typed as the interface: the factory's own method returns a class not visible outside its package. */
	private final ReactiveRedisConnectionFactory redis;

	StoreWriteCheck(LettuceConnectionFactory redis) {
		this.redis = redis;
	}

	@Override
	public Mono<Void> get() {
		return Mono.<Void, ReactiveRedisConnection>usingWhen(Mono.fromSupplier(redis::getReactiveConnection),
				connection -> connection.keyCommands().del(ByteBuffer.wrap(KEY.getBytes(StandardCharsets.UTF_8))).then(),
				ReactiveRedisConnection::closeLater)
			.subscribeOn(OffEventLoop.SCHEDULER);
	}

}
