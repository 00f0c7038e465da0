package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
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
 * one a client altered, or one signed with another secret is refused (it would restore the client's word), and so is
 * one that carries no valid JSON-RPC id. An id of the former format is restored, untrusted, when it verifies.
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
			assertThat(origin.refused()).as("servers number their requests from 0 per session: an id minted for one "
					+ "session, caller or server is no id of another's request (%s)", other.server()).isTrue();
			assertThat(origin.id()).as("nothing is restored").isNull();
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
		assertThat(ids.unwrap(id, SESSION_A).refused()).as("past its lifetime").isTrue();
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
	void theIdIsBoundedWhateverTheMethodWhichStaysAtHandOnTheReplicaThatRelayedTheRequest() {
		ObjectNode invented = REQUEST.deepCopy();
		String method = "vendor/" + "m".repeat(50_000);
		invented.put("method", method);
		ServerRequestIds relaying = ids("shared");

		TextNode id = relaying.wrap(invented, SESSION_A);

		assertThat(id.textValue()).as("a 50,000-character method gets a short id").hasSizeLessThan(300);
		assertThat(relaying.unwrap(id, SESSION_A).method()).isEqualTo(method);
		ServerRequestIds.Origin elsewhere = ids("shared").unwrap(id, SESSION_A);
		assertThat(elsewhere.trusted()).isTrue();
		assertThat(elsewhere.id().asInt()).isZero();
		assertThat(elsewhere.method()).as("another replica never saw the method").isNull();
	}

	@Test
	void anotherSecretOrAnAlteredIdIsRefused() {
		TextNode id = ids("shared").wrap(REQUEST, SESSION_A);
		String token = id.textValue();
		String altered = token.substring(0, ServerRequestIds.PREFIX.length() + 3) + "A"
				+ token.substring(ServerRequestIds.PREFIX.length() + 4);

		assertThat(ids("other").unwrap(id, SESSION_A).refused()).isTrue();
		assertThat(ids(null).unwrap(id, SESSION_A).refused()).isTrue();
		assertThat(ids("shared").unwrap(TextNode.valueOf(altered), SESSION_A).refused()).isTrue();
		assertThat(ids("s").unwrap(TextNode.valueOf(ServerRequestIds.PREFIX + "!!!.x"), SESSION_A).refused()).isTrue();
		assertThat(ids("s").unwrap(TextNode.valueOf(ServerRequestIds.PREFIX + "no-signature"), SESSION_A).refused())
			.isTrue();
	}

	@Test
	void aForgedIdCarryingSomethingOtherThanAJsonRpcIdIsRefused() {
		// {"i":{"evil":[1,2]}} reached a server as its request's id; signed or not, it is none
		for (String forged : List.of("{\"evil\":[1,2]}", "null", "1.5", "[\"a\"]", "true")) {
			ObjectNode request = REQUEST.deepCopy();
			request.set("id", read(forged));
			TextNode id = ids("shared").wrap(request, SESSION_A);
			assertThat(ids("shared").unwrap(id, SESSION_A).refused()).as(forged).isTrue();
		}
		ObjectNode named = REQUEST.deepCopy();
		named.put("id", "line1\n\u001b[31mFAKE");
		assertThat(ids("shared").unwrap(ids("shared").wrap(named, SESSION_A), SESSION_A).id().textValue())
			.as("a string is an id the server may have chosen, restored exactly")
			.isEqualTo("line1\n\u001b[31mFAKE");
	}

	@Test
	void idsTheRelayDidNotGiveAreLeftAlone() {
		assertThat(ids("s").unwrap(TextNode.valueOf("client-7"), SESSION_A)).isNull();
		assertThat(ids("s").unwrap(JsonRpcParser.mapper().getNodeFactory().numberNode(7), SESSION_A)).isNull();
	}

	@Test
	void anAnswerUnderAnIdTheRelayDidNotGiveIsRefused() {
		assertThat(ids("s").answered(TextNode.valueOf("client-7"), SESSION_A).refused()).isTrue();
		assertThat(ids("s").answered(JsonRpcParser.mapper().getNodeFactory().numberNode(0), SESSION_A).refused())
			.isTrue();
		assertThat(ids("s").answered(null, SESSION_A).refused()).isTrue();
	}

	@Test
	void anIdOfTheFormerFormatIsRestoredUntrustedWhenItVerifies() {
		// mcp-relay.1.: the id, method and params, with an HMAC over them alone (no session, no lifetime)
		String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(
				"{\"i\":\"srv-3\",\"m\":\"sampling/createMessage\",\"p\":{}}".getBytes());
		RelayMac mac = new RelayMac("shared");
		TextNode former = TextNode.valueOf(ServerRequestIds.FORMER_PREFIX + payload + "." + mac.sign(payload));

		ServerRequestIds.Origin origin = ids("shared").unwrap(former, SESSION_A);

		assertThat(origin.id().asText()).as("a request an older replica relayed is answered during an upgrade")
			.isEqualTo("srv-3");
		assertThat(origin.trusted()).as("bound to no session: the stage sees no request").isFalse();
		assertThat(origin.method()).isNull();
		assertThat(ids("other").unwrap(former, SESSION_A).refused()).as("one that does not verify").isTrue();
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
