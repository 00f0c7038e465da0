package dev.mcprelay.config;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * State the relay keeps across requests, {@code mcp-relay.sessions}: rate-limit budgets today.
 *
 * @param store {@code memory} (the default: per replica) or {@code redis} (shared by every replica, with
 * {@code spring.data.redis.*})
 * @param idleTimeout how long state nobody touches is kept
 */
public record SessionsProperties(
		@DefaultValue("memory") SessionStoreKind store,
		@DefaultValue("1h") Duration idleTimeout) {
}
