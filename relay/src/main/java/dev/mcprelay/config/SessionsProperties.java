package dev.mcprelay.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

/**
 * State the relay keeps across requests, {@code mcp-relay.sessions}: rate-limit budgets, and the key of what it carries
 * in messages.
 *
 * @param store {@code memory} (the default: per replica) or {@code redis} (shared by every replica, with
 * {@code spring.data.redis.*})
 * @param idleTimeout how long state nobody touches is kept
 * @param maxBridgedSessions how many sessions with a legacy SSE upstream ({@code transport: sse}) one replica keeps
 * open at once; each holds an upstream event stream. One more {@code initialize} is answered 503
 * @param maxPerCaller how many sessions one caller may hold at once (stored sessions: tool search, legacy SSE
 * bridges); past it the caller's own oldest session ends, never another caller's. Anonymous callers are not counted
 * @param secret the key replicas share to trust what the relay carries in messages (the server request a client's
 * answer brings back); unset, each process makes its own. A secret: never logged
 * @param maxHeldBytes how many bytes of messages one queue that waits for a client may hold, besides its count bound:
 * a legacy SSE session's messages for its client's GET stream (256; past it the newest is dropped), one POST's answers
 * on it (1,024; past it the POST fails with {@code held_messages_full}), the relay's own notifications for a GET stream
 * (64; past it they are dropped). One message larger than this is held when it is alone. It bounds as well what any
 * stream holds for its client: the events read ahead of it, and what was handed to its connection and not yet written
 */
public record SessionsProperties(
		@DefaultValue("memory") SessionStoreKind store,
		@DurationUnit(ChronoUnit.SECONDS) @DefaultValue("1h") Duration idleTimeout,
		@DefaultValue("1000") int maxBridgedSessions,
		@DefaultValue("1000") int maxPerCaller,
		String secret,
		@DefaultValue("4MB") DataSize maxHeldBytes) {

	@Override
	public String toString() {
		return "SessionsProperties[store=" + store + ", idleTimeout=" + idleTimeout + ", maxBridgedSessions="
				+ maxBridgedSessions + ", maxPerCaller=" + maxPerCaller + ", secret="
				+ (secret == null ? "none" : "<redacted>") + ", maxHeldBytes=" + maxHeldBytes + "]";
	}

}
