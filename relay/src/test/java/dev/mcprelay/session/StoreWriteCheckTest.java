package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.RedisWire;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * The write check {@link MasterCatchUp} makes after it moved the store's connections, against a real redis-server:
 * a store user given only the key patterns docs/operations.md lists may run it (review 45j J-2: its key was outside
 * them, the master answered NOPERM, read as writes still refused, and the relay stayed unready for good), and a
 * replica refuses it {@code READONLY}, as the catch-up reads it.
 */
class StoreWriteCheckTest {

	static final String PASSWORD = "write-check-test-password";

	static RedisServerProcess master;

	static RedisServerProcess replica;

	@BeforeAll
	static void start() throws Exception {
		master = RedisServerProcess.start(TestUpstreams.freePort(), List.of());
		replica = RedisServerProcess.start(TestUpstreams.freePort(),
				List.of("--replicaof", "127.0.0.1", String.valueOf(TestUpstreams.freePort())));
		for (RedisServerProcess redis : List.of(master, replica)) {
			// the documented key patterns, nothing more
			RedisWire.call(redis.port(), "ACL", "SETUSER", "relaydata", "on", ">" + PASSWORD,
					"~mcp-relay:session:*", "~mcp-relay:caller-sessions:*", "~mcp-relay:rate-limit:*", "&*", "+@all");
		}
	}

	@AfterAll
	static void stop() throws Exception {
		for (RedisServerProcess redis : new RedisServerProcess[] { master, replica }) {
			if (redis != null) {
				redis.close();
			}
		}
	}

	@Test
	void aStoreUserWithTheDocumentedKeyPatternsMayRunIt() {
		LettuceConnectionFactory factory = factory(master.port());
		try {
			Throwable failed = check(factory);
			assertThat(failed).as("the write check on the master, as the documented user").isNull();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aReplicaRefusesItReadOnly() {
		LettuceConnectionFactory factory = factory(replica.port());
		try {
			Throwable failed = check(factory);
			assertThat(failed).as("refused by the replica").isNotNull();
			assertThat(MasterCatchUp.readOnly(failed)).as("%s", failed).isTrue();
		}
		finally {
			factory.destroy();
		}
	}

	private static Throwable check(LettuceConnectionFactory factory) {
		return new StoreWriteCheck(factory).get()
			.then(Mono.<Throwable>empty())
			.onErrorResume(Mono::just)
			.block(Duration.ofSeconds(30));
	}

	private static LettuceConnectionFactory factory(int port) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", port);
		configuration.setUsername("relaydata");
		configuration.setPassword(PASSWORD);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
