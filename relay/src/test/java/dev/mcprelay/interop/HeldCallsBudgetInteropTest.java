package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Review 46m's M2: a 2026-07-28 client's call that a 2025 server asks something in is held for the client's retry,
 * past the exchange of the request that brought it; what it keeps of that request counts in the caller's share of
 * {@code max-buffered-bodies} (the gauge shows it) until the call ends, answered after a retry or expired, and a call
 * past the share is refused ({@code relay_overloaded}) while another caller is served. The server is the TypeScript SDK
 * 1.x ({@code interop/ask-server.mjs}), whose tool {@code ask} elicits on the call's stream.
 */
class HeldCallsBudgetInteropTest {

	/** A call's padding: two held calls (twice their body each) and a third one's reading pass alice's 3 MB share. */
	private static final String PAD = "p".repeat(600_000);

	/** The letter of {@link #aHeldCallKeepsNoCopyOfItsRequestThatItsShareDoesNotCount}'s padding, and its length. */
	private static final char MARK = 'Q';

	private static final int MARKED_LENGTH = 600_000;

	private static AskServer server;

	private static ConfigurableApplicationContext relay;

	@BeforeAll
	static void start() throws Exception {
		server = new AskServer();
		relay = TwoCallersOnATightBudget.start("v1", server.url(), "--mcp-relay.servers.v1.protocol-versions=2025-11-25",
				"--mcp-relay.servers.v1.timeouts.streaming-idle=15s");
	}

	@AfterAll
	static void stop() throws Exception {
		if (relay != null) {
			relay.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void heldCallsCountInTheCallersShareUntilTheyEndAndTheOnePastItIsRefused() throws Exception {
		RawHttp alice = TwoCallersOnATightBudget.alice(relay);
		RawHttp bob = TwoCallersOnATightBudget.bob(relay);

		JsonNode first = asked(alice.send(ask(alice, 1, "")));
		assertThat(held()).as("the held call's request, past its exchange").isGreaterThanOrEqualTo(2.0 * PAD.length());
		String key = first.at("/result/inputRequests").fieldNames().next();
		String retry = ",\"inputResponses\":{\"" + key + "\":{\"action\":\"accept\",\"content\":{\"yes\":true}}},"
				+ "\"requestState\":\"" + first.at("/result/requestState").asText() + "\"";
		JsonNode answered = RawHttp.messagesOf(alice.send(ask(alice, 2, retry))).get(0);
		assertThat(answered.at("/result/content/0/text").asText()).as("%s", answered).startsWith("answered");
		waitFor(() -> held() == 0);
		assertThat(held()).as("the call ended with its answer: nothing kept").isZero();

		asked(alice.send(ask(alice, 3, "")));
		asked(alice.send(ask(alice, 4, "")));
		assertThat(held()).as("two held calls").isGreaterThanOrEqualTo(4.0 * PAD.length());
		HttpResponse<String> refused = alice.send(ask(alice, 5, ""));
		assertThat(refused.statusCode()).as("the call past alice's share: %s", refused.body()).isEqualTo(503);
		assertThat(RawHttp.json(refused.body()).at("/error/data/reason").asText()).isEqualTo("relay_overloaded");
		JsonNode echoed = RawHttp.messagesOf(bob.send(modern(bob, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}," + AskServer.meta("b")
				+ "}}", "echo"))).get(0);
		assertThat(echoed.at("/result/content/0/text").asText()).as("another caller is served: %s", echoed)
			.isEqualTo("hi");

		// never retried: they expire at the server's streaming-idle (15 s)
		waitFor(() -> held() == 0 && bridge().heldCalls() == 0);
		assertThat(bridge().heldCalls()).isZero();
		assertThat(held()).as("the expired calls keep nothing").isZero();
	}

	/**
	 * Review 46m's M2, the third copy: the held call's exchange trace, which the relay's stages keep watching the
	 * server's later requests with, kept the client's request, its bytes and its tree, uncounted. Once the call is held
	 * and the request's exchange ended, the live heap holds the request no more often than the caller's share counts it
	 * (twice its body): here once, as the server was sent it.
	 */
	@Test
	void aHeldCallKeepsNoCopyOfItsRequestThatItsShareDoesNotCount() throws Exception {
		RawHttp bob = TwoCallersOnATightBudget.bob(relay);
		waitFor(() -> held() == 0);
		double requests = requests();

		JsonNode first = asked(bob.send(marked(bob, 7, "")));
		waitFor(() -> requests() > requests);
		assertThat(requests()).as("the request's exchange ended").isGreaterThan(requests);

		long copies = LiveHeapRuns.of(MARK, MARKED_LENGTH);
		assertThat(copies).as("the request as the held exchange sent it").isGreaterThanOrEqualTo(1);
		assertThat((double) copies * MARKED_LENGTH)
			.as("%d copies of the held call's request in the live heap, counted %s bytes", copies, held())
			.isLessThanOrEqualTo(held());

		String key = first.at("/result/inputRequests").fieldNames().next();
		String retry = ",\"inputResponses\":{\"" + key + "\":{\"action\":\"accept\",\"content\":{\"yes\":true}}},"
				+ "\"requestState\":\"" + first.at("/result/requestState").asText() + "\"";
		JsonNode answered = RawHttp.messagesOf(bob.send(marked(bob, 8, retry))).get(0);
		assertThat(answered.at("/result/content/0/text").asText()).as("%s", answered).startsWith("answered");
		waitFor(() -> held() == 0);
		assertThat(held()).as("the call ended with its answer: nothing kept").isZero();
	}

	/** A call of {@code ask} whose padding is {@value #MARKED_LENGTH} {@code MARK}s, made anew: the test keeps none. */
	private static HttpRequest.Builder marked(RawHttp caller, int id, String more) {
		return modern(caller, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"ask\",\"arguments\":{\"pad\":\"" + String.valueOf(MARK).repeat(MARKED_LENGTH) + "\"}" + more + ","
				+ AskServer.meta("b") + "}}", "ask");
	}

	private static double requests() {
		return relay.getBean(MeterRegistry.class).find(RelayMeters.REQUESTS).counters().stream()
			.mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
	}

	private static JsonNode asked(HttpResponse<String> response) {
		JsonNode asked = RawHttp.messagesOf(response).get(0);
		assertThat(asked.at("/result/resultType").asText()).as("%s", asked).isEqualTo("input_required");
		return asked;
	}

	private static HttpRequest.Builder ask(RawHttp caller, int id, String more) {
		return modern(caller, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":"
				+ "\"ask\",\"arguments\":{\"pad\":\"" + PAD + "\"}" + more + "," + AskServer.meta("a") + "}}", "ask");
	}

	private static HttpRequest.Builder modern(RawHttp http, String body, String name) {
		return http.post("v1", body).header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
			.header("Mcp-Name", name);
	}

	private static double held() {
		return relay.getBean(MeterRegistry.class).get(RelayMeters.BUFFERED_BODIES).gauge().value();
	}

	/** Waits for what ends on the relay after an answer was read (an exchange, a call's expiry), or for 40 s. */
	private static void waitFor(BooleanSupplier done) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
		while (!done.getAsBoolean() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
	}

	private static dev.mcprelay.bridge.VersionBridge bridge() {
		dev.mcprelay.proxy.Upstream upstream = relay.getBean(dev.mcprelay.proxy.UpstreamRegistry.class).find("v1");
		return (dev.mcprelay.bridge.VersionBridge) relay.getBean(dev.mcprelay.proxy.UpstreamTransports.class)
			.of(upstream);
	}

}
