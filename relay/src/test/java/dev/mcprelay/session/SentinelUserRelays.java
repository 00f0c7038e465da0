package dev.mcprelay.session;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RedisSentinelProcesses;

/**
 * A relay (sessions in Redis, mode none, on 127.0.0.1) over {@code sentinel}'s Sentinels, which it reaches as the ACL
 * user {@code relay} with {@code password}: for the tests of what the relay's Sentinel user may and may not do.
 */
final class SentinelUserRelays {

	private SentinelUserRelays() {
	}

	static ConfigurableApplicationContext start(RedisSentinelProcesses sentinel, String password) {
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.sessions.store=redis", "--mcp-relay.security.mode=none",
				"--spring.data.redis.sentinel.username=relay", "--spring.data.redis.sentinel.password=" + password));
		args.addAll(sentinel.relayArguments());
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run(args.toArray(String[]::new));
	}

}
