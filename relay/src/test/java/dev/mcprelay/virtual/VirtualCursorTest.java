package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;

import dev.mcprelay.api.Caller;
import dev.mcprelay.config.ToolSearchProperties;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import dev.mcprelay.security.RelayMac;
import io.netty.handler.codec.http.DefaultHttpHeaders;

/**
 * A merged list's cursor is the relay's own, verified before any member sees it: refused when altered, for another
 * list or another session, and, for an MCP 2026-07-28 client that has no session, for another caller (a cursor is
 * bound to whoever it was given to).
 */
class VirtualCursorTest {

	private static final VirtualServer SERVER = new VirtualServer("all", List.of("a", "b"), Map.of("a", "a_", "b", "b_"),
			new ToolSearchProperties(false, 5, List.of()));

	private final VirtualCursor cursors = new VirtualCursor(new RelayMac("a-test-secret-of-thirty-two-bytes!!"));

	@Test
	void aCursorGivenToOneCallerWithoutASessionIsRefusedToAnother() {
		VirtualCall alice = statelessCall(Caller.apiKey("alice"));
		VirtualCall bob = statelessCall(Caller.apiKey("bob"));
		String cursor = cursors.encode(alice, "tools/list", Map.of("a", "p2"));

		assertThat(cursors.decode(alice, "tools/list", cursor)).as("the caller it was given to").containsEntry("a", "p2");
		assertThat(cursors.decode(bob, "tools/list", cursor)).as("another caller").isNull();
		assertThat(cursors.decode(statelessCall(Caller.ANONYMOUS), "tools/list", cursor)).as("nobody").isNull();
		assertThat(cursors.decode(alice, "prompts/list", cursor)).as("another list").isNull();
		assertThat(cursors.decode(alice, "tools/list", "x" + cursor)).as("altered").isNull();
	}

	private static VirtualCall statelessCall(Caller caller) {
		VirtualMembers access = new VirtualMembers("all", List.of("a", "b"));
		MemberExchange exchange = new MemberExchange(HttpMethod.POST, new McpRoute(McpRoute.Kind.VIRTUAL, "all", null),
				null, new DefaultHttpHeaders(), new byte[0], null, caller, access, new MemberResponse("all", answer -> {
				}, () -> {
				}), reactor.core.publisher.Mono.never(), () -> dev.mcprelay.http.RelayExchange.NOT_WITHDRAWN);
		return new VirtualCall(exchange, SERVER, access, null, dev.mcprelay.proxy.WholeAnswerWriter.UNTIMED);
	}

}
