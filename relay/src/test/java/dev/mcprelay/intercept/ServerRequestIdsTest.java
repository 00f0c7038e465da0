package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.security.RelayMac;

/**
 * The id a server request gets on its way to the client is bound to the server, the session and the caller it was
 * relayed to, for a lifetime, and carries the method and a digest of the params, never the params: replicas that
 * share {@code sessions.secret} trust each other's; an id from another session, caller or server, an expired one,
 * one a client altered, or one signed with another secret is restored (the server gets its own id back) but not
 * trusted (the stage sees no request).
 */
class ServerRequestIdsTest {

	private static final ObjectNode REQUEST = (ObjectNode) read(
			"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Your email?\"}}");

	private static final CallContext SESSION_A = context("github", "session-a", Caller.apiKey("ci-bot"));

	private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

	@Test
	void replicasSharingTheSecretTrustEachOtherWithinTheSameSession() {
		TextNode id = ids("shared").wrap(REQUEST, SESSION_A);

		ServerRequestIds.Origin origin = ids("shared").unwrap(id, SESSION_A);

		assertThat(origin.trusted()).isTrue();
		assertThat(origin.id().asInt()).isZero();
		assertThat(origin.method()).isEqualTo("elicitation/create");
	}

	@Test
	void anIdIsBoundToItsServerSessionAndCaller() {
		TextNode id = ids("shared").wrap(REQUEST, SESSION_A);

		for (CallContext other : List.of(context("github", "session-b", Caller.apiKey("ci-bot")),
				context("github", "session-a", Caller.apiKey("other-bot")),
				context("jira", "session-a", Caller.apiKey("ci-bot")))) {
			ServerRequestIds.Origin origin = ids("shared").unwrap(id, other);
			assertThat(origin.trusted()).as("servers number their requests from 0 per session: an id minted for one "
					+ "session, caller or server says nothing of another's request (%s)", other.server()).isFalse();
			assertThat(origin.method()).isNull();
			assertThat(origin.id().asInt()).as("the server still gets an id back").isZero();
		}
	}

	@Test
	void anIdExpiresAfterItsLifetime() {
		MutableClock clock = new MutableClock(NOW);
		ServerRequestIds ids = new ServerRequestIds(new RelayMac("shared"), Duration.ofMinutes(10), clock);
		TextNode id = ids.wrap(REQUEST, SESSION_A);

		clock.now = NOW.plus(Duration.ofMinutes(9));
		assertThat(ids.unwrap(id, SESSION_A).trusted()).isTrue();
		clock.now = NOW.plus(Duration.ofMinutes(11));
		assertThat(ids.unwrap(id, SESSION_A).trusted()).as("past its lifetime").isFalse();
	}

	@Test
	void theIdCarriesNoParamsWhichStayAtHandOnTheReplicaThatRelayedTheRequest() {
		ObjectNode large = REQUEST.deepCopy();
		large.withObject("params").put("message", "x".repeat(200_000));
		ServerRequestIds relaying = ids("shared");

		TextNode id = relaying.wrap(large, SESSION_A);

		assertThat(id.textValue()).as("a 200 KB request gets a short id").hasSizeLessThan(300);
		assertThat(relaying.unwrap(id, SESSION_A).params().path("message").asText()).hasSize(200_000);
		ServerRequestIds.Origin elsewhere = ids("shared").unwrap(id, SESSION_A);
		assertThat(elsewhere.trusted()).isTrue();
		assertThat(elsewhere.method()).as("another replica knows the method").isEqualTo("elicitation/create");
		assertThat(elsewhere.params()).as("but not params it never saw").isNull();
	}

	@Test
	void anotherSecretOrAnAlteredIdIsRestoredButNotTrusted() {
		TextNode id = ids("shared").wrap(REQUEST, SESSION_A);
		String token = id.textValue();
		String altered = token.substring(0, ServerRequestIds.PREFIX.length() + 3) + "A"
				+ token.substring(ServerRequestIds.PREFIX.length() + 4);

		assertThat(ids("other").unwrap(id, SESSION_A).trusted()).isFalse();
		assertThat(ids("other").unwrap(id, SESSION_A).id().asInt()).as("the server still gets its id").isZero();
		assertThat(ids(null).unwrap(id, SESSION_A).trusted()).isFalse();
		ServerRequestIds.Origin tampered = ids("shared").unwrap(TextNode.valueOf(altered), SESSION_A);
		assertThat(tampered == null || !tampered.trusted()).isTrue();
	}

	@Test
	void idsTheRelayDidNotGiveAreLeftAlone() {
		assertThat(ids("s").unwrap(TextNode.valueOf("client-7"), SESSION_A)).isNull();
		assertThat(ids("s").unwrap(JsonRpcParser.mapper().getNodeFactory().numberNode(7), SESSION_A)).isNull();
		assertThat(ids("s").unwrap(TextNode.valueOf(ServerRequestIds.PREFIX + "!!!.x"), SESSION_A)).isNull();
	}

	@Test
	void theParamsKeptAreBoundedByWhatTheyCostOnTheHeap() {
		ServerRequestIds ids = ids("shared");
		int requests = 200_000;
		for (int i = 0; i < requests; i++) {
			ObjectNode request = REQUEST.deepCopy();
			request.putObject("params").put("n", i);
			ids.wrap(request, SESSION_A);
		}

		// each entry weighs its 12 bytes of params, its 43-character digest and the heap an entry takes beyond them
		// (measured with JOL: 218 bytes for such an entry); weighed by its serialized bytes alone, all 200,000 fit
		long mostEntries = ServerRequestIds.KEPT_PARAMS_BYTES / (KeptBytes.ENTRY_OVERHEAD + 12);
		assertThat(ids.keptParams()).as("entries kept").isLessThanOrEqualTo(mostEntries).isGreaterThan(requests / 10);
		assertThat(ids.keptParamsWeight()).isLessThanOrEqualTo(ServerRequestIds.KEPT_PARAMS_BYTES);
	}

	private static ServerRequestIds ids(String secret) {
		return new ServerRequestIds(new RelayMac(secret), Duration.ofHours(1), Clock.fixed(NOW, ZoneOffset.UTC));
	}

	private static CallContext context(String server, String session, Caller caller) {
		return new CallContext(server, RequestHeaders.of(Map.of("Mcp-Session-Id", List.of(session))), caller);
	}

	private static com.fasterxml.jackson.databind.JsonNode read(String json) {
		try {
			return JsonRpcParser.mapper().readTree(json);
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static final class MutableClock extends Clock {

		private Instant now;

		MutableClock(Instant now) {
			this.now = now;
		}

		@Override
		public java.time.ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return now;
		}

	}

}
