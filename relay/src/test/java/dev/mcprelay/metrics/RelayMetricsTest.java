package dev.mcprelay.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.testsupport.InterceptorIntegrationTest;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.RawHttp;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The request, duration and bytes meters after JSON, SSE, rejected, responded and failed exchanges, read from the
 * registry and from the scraped Prometheus text; tags stay bounded whatever clients send. The context is shared, so
 * every count is taken as a difference around the exchange under test.
 */
@AutoConfigureMetrics
class RelayMetricsTest extends InterceptorIntegrationTest {

	@Autowired
	MeterRegistry registry;

	@Test
	void jsonExchangeIsCountedTimedAndSizedAsTheClientReceivedIt() {
		String[] tags = tags("sdk-json", "POST", "tools/call", "2xx", "forwarded");
		double before = count(tags);
		long timedBefore = timed(tags);
		double bytesBefore = bytes(tags);

		HttpResponse<String> response = http().send(http().post("sdk-json", RawHttp.toolsCall(1, "echo")));

		// Meters are recorded when the exchange ends, a moment after the client has read the last byte.
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(tags)).isEqualTo(before + 1));
		assertThat(timed(tags)).isEqualTo(timedBefore + 1);
		assertThat(bytes(tags) - bytesBefore).as("bytes are what the client received")
			.isEqualTo(response.body().getBytes(StandardCharsets.UTF_8).length);
	}

	@Test
	void streamIsTimedUntilItEndsAndCountedAsOpenMeanwhile() throws Exception {
		McpSession session = session("sdk");
		String[] tags = tags("sdk", "POST", "tools/call", "2xx", "forwarded");
		long timedBefore = timed(tags);
		double bytesBefore = bytes(tags);

		HttpResponse<InputStream> stream = http().open(session.request("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}"));
		CompletableFuture<byte[]> body = CompletableFuture
			.supplyAsync(() -> RawHttp.readAll(stream.body()).getBytes(StandardCharsets.UTF_8));

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(openStreams("sdk")).isEqualTo(1));
		assertThat(timed(tags)).as("not timed while the stream is open").isEqualTo(timedBefore);
		upstream.releaseProgress();
		byte[] received = body.get();

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(timed(tags)).isEqualTo(timedBefore + 1);
			assertThat(openStreams("sdk")).isZero();
		});
		assertThat(bytes(tags) - bytesBefore).as("every byte of the stream the client received").isEqualTo(received.length);
	}

	@Test
	void aClientThatGoesAwayMidStreamIsStillCountedAndItsStreamClosed() throws Exception {
		McpSession session = session("sdk");
		String[] tags = tags("sdk", "POST", "tools/call", "2xx", "forwarded");
		double before = count(tags);

		// A client of its own: the connection it abandons must not be reused by the tests after this one.
		java.net.http.HttpClient leaving = java.net.http.HttpClient.newBuilder()
			.version(java.net.http.HttpClient.Version.HTTP_1_1)
			.build();
		HttpResponse<InputStream> stream = leaving.send(session.request("{\"jsonrpc\":\"2.0\",\"id\":\"gone\",\"method\":"
				+ "\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"t\"}}}")
			.build(), HttpResponse.BodyHandlers.ofInputStream());
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(openStreams("sdk")).isEqualTo(1));
		stream.body().read();
		stream.body().close();

		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(openStreams("sdk")).as("the stream is no longer open").isZero();
			assertThat(count(tags)).as("the exchange was counted when the client left").isEqualTo(before + 1);
		});
	}

	@Test
	void rejectedRespondedAndFailedExchangesHaveTheirOutcome() {
		script.on("first", Stage.TOOLS_CALL_REQUEST, call -> call.toolName().equals("blocked")
				? Outcome.reject(RejectError.policy("no")) : Outcome.proceed());
		script.on("first", Stage.OTHER_REQUEST, request -> Outcome.respond(java.util.Map.of()));
		String[] rejected = tags("sdk-json", "POST", "tools/call", "error", "rejected");
		String[] responded = tags("sdk-json", "POST", "ping", "error", "responded");
		String[] refused = tags("refused", "POST", "tools/call", "error", "failed");
		String[] timedOut = tags("sdk-json-slow", "POST", "tools/call", "error", "failed");
		String[] rejections = { RelayMeters.SERVER, "sdk-json", RelayMeters.STAGE, "tools-call-request",
				RelayMeters.INTERCEPTOR, "first" };
		double[] before = { count(rejected), count(responded), count(refused), count(timedOut), rejections(rejections) };

		http().send(http().post("sdk-json", RawHttp.toolsCall(1, "blocked")));
		http().send(http().post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"));
		http().send(http().post("refused", RawHttp.toolsCall(3, "echo")));
		http().send(http().post("sdk-json-slow", RawHttp.toolsCall(4, "slow")));

		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(new double[] { count(rejected), count(responded), count(refused),
					count(timedOut), rejections(rejections) })
				.containsExactly(before[0] + 1, before[1] + 1, before[2] + 1, before[3] + 1, before[4] + 1));
		Timer interceptorTimer = registry.find(RelayMeters.INTERCEPTOR_DURATION)
			.tags(RelayMeters.STAGE, "tools-call-request", RelayMeters.INTERCEPTOR, "first", RelayMeters.RESULT, "reject")
			.timer();
		assertThat(interceptorTimer).as("the rejecting interceptor was timed").isNotNull();
	}

	@Test
	void clientMistakesAreClientErrorsNotUpstreamFailures() {
		String[] unknownServer = tags("unknown", "POST", "none", "error", "client_error");
		String[] unparsable = tags("sdk-json", "POST", "none", "error", "client_error");
		String[] wrongMethod = tags("sdk-json", "other", "none", "error", "client_error");
		double[] before = { count(unknownServer), count(unparsable), count(wrongMethod) };

		http().send(http().post("no-such-server", RawHttp.toolsCall(1, "echo")));
		java.net.http.HttpResponse<String> otherPath = http().send(java.net.http.HttpRequest
			.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/mcp/a/b"))
			.POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")));
		http().send(http().post("sdk-json", "{not json"));
		http().send(http().request("sdk-json").PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{}")));

		assertThat(otherPath.statusCode()).as("a path that is no MCP endpoint is not found").isEqualTo(404);
		assertThat(RawHttp.json(otherPath.body()).at("/error/data/reason").asText()).isEqualTo("not_found");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(new double[] { count(unknownServer), count(unparsable), count(wrongMethod) })
				.as("an unknown server, a malformed body and a wrong method are the client's mistakes; another path "
						+ "is no MCP endpoint and is left to Spring's HTTP metrics")
				.containsExactly(before[0] + 1, before[1] + 1, before[2] + 1));
		assertThat(registry.find(RelayMeters.REQUESTS).tag(RelayMeters.OUTCOME, "failed").counters())
			.as("none of them counts as a failure")
			.noneMatch(counter -> counter.getId().getTag(RelayMeters.SERVER).equals("unknown"));
	}

	@Test
	void tagsStayBoundedWhateverClientsSend() {
		for (int i = 0; i < 1000; i++) {
			http().send(http().post("sdk-json", "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"made/up/" + i + "\"}"));
		}
		for (int i = 0; i < 50; i++) {
			http().send(http().post("no-such-server-" + i, RawHttp.toolsCall(i, "echo")));
		}

		Set<String> rpcMethods = registry.find(RelayMeters.REQUESTS).counters().stream()
			.map(counter -> counter.getId().getTag(RelayMeters.RPC_METHOD))
			.collect(Collectors.toSet());
		Set<String> servers = registry.find(RelayMeters.REQUESTS).counters().stream()
			.map(counter -> counter.getId().getTag(RelayMeters.SERVER))
			.collect(Collectors.toSet());
		assertThat(rpcMethods).as("a thousand made-up methods are all 'other'").contains("other")
			.noneMatch(method -> method.startsWith("made/up"));
		assertThat(servers).as("unknown servers are all 'unknown'").contains("unknown")
			.noneMatch(server -> server.startsWith("no-such-server"));
		assertThat(registry.getMeters()).as("no meter carries a client-chosen value")
			.noneMatch(meter -> meter.getId().getTags().toString().contains("made/up"));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(count(tags("sdk-json", "POST", "other", "2xx", "forwarded")))
				.isGreaterThanOrEqualTo(1000));
	}

	@Test
	void prometheusScrapeCarriesTheMetersAndTheirBuckets() {
		http().send(http().post("sdk-json", RawHttp.toolsCall(1, "echo")));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> count(tags("sdk-json", "POST", "tools/call", "2xx", "forwarded")) > 0);

		String scrape = http().send(java.net.http.HttpRequest.newBuilder(
				java.net.URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).timeout(Duration.ofSeconds(20)))
			.body();

		String series = "{client=\"none\",http_method=\"POST\",outcome=\"forwarded\",rpc_method=\"tools/call\",server=\"sdk-json\",status_class=\"2xx\",virtual_server=\"none\"";
		assertThat(scrape).contains("mcp_relay_requests_total" + series + "}")
			.contains("mcp_relay_request_duration_seconds_count" + series + "}")
			.contains("mcp_relay_response_bytes_sum" + series + "}")
			.contains("mcp_relay_streams_active{server=\"sdk\"}");
		assertThat(buckets(scrape, "mcp_relay_request_duration_seconds_bucket" + series)).as("duration buckets")
			.containsExactly("0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "30.0", "60.0",
					"120.0", "+Inf");
		assertThat(buckets(scrape, "mcp_relay_response_bytes_bucket" + series)).as("bytes buckets")
			.containsExactly("1024.0", "4096.0", "16384.0", "65536.0", "262144.0", "1048576.0", "4194304.0",
					"1.6777216E7", "5.24288E7", "+Inf");
	}

	@Test
	void springsOwnHttpTimerLeavesTheRelayedPathsToTheRelaysMeters() {
		http().send(http().post("sdk-json", RawHttp.toolsCall(1, "echo")));
		assertThat(actuatorStatus("health")).isEqualTo(200);

		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(registry.find("http.server.requests").tag("uri", "/actuator/health").timer())
				.as("actuator keeps Spring's timer").isNotNull());
		assertThat(registry.find("http.server.requests").timers()).as("no /mcp request is timed twice")
			.noneMatch(timer -> String.valueOf(timer.getId().getTag("uri")).startsWith("/mcp"));
	}

	@Test
	void onlyHealthProbesAndPrometheusAreExposed() {
		assertThat(actuatorStatus("health")).isEqualTo(200);
		assertThat(actuatorStatus("health/liveness")).isEqualTo(200);
		assertThat(actuatorStatus("health/readiness")).isEqualTo(200);
		assertThat(actuatorStatus("prometheus")).isEqualTo(200);
		for (String hidden : List.of("env", "configprops", "beans", "metrics", "heapdump", "loggers", "mappings")) {
			assertThat(actuatorStatus(hidden)).as("/actuator/" + hidden).isEqualTo(404);
		}
	}

	private int actuatorStatus(String endpoint) {
		return http().send(java.net.http.HttpRequest.newBuilder(
				java.net.URI.create("http://127.0.0.1:" + port + "/actuator/" + endpoint)).timeout(Duration.ofSeconds(20)))
			.statusCode();
	}

	/** The {@code le} values of one series' buckets, in the order scraped. */
	private static java.util.List<String> buckets(String scrape, String seriesPrefix) {
		return scrape.lines()
			.filter(line -> line.startsWith(seriesPrefix + ",le=\""))
			.map(line -> line.substring(line.indexOf(",le=\"") + 5, line.indexOf("\"}")))
			.toList();
	}

	private static String[] tags(String server, String httpMethod, String rpcMethod, String statusClass, String outcome) {
		return new String[] { RelayMeters.SERVER, server, RelayMeters.HTTP_METHOD, httpMethod, RelayMeters.RPC_METHOD,
				rpcMethod, RelayMeters.STATUS_CLASS, statusClass, RelayMeters.OUTCOME, outcome };
	}

	private double count(String... tags) {
		Counter counter = registry.find(RelayMeters.REQUESTS).tags(tags).counter();
		return counter == null ? 0 : counter.count();
	}

	private long timed(String... tags) {
		Timer timer = registry.find(RelayMeters.REQUEST_DURATION).tags(tags).timer();
		return timer == null ? 0 : timer.count();
	}

	private double bytes(String... tags) {
		DistributionSummary summary = registry.find(RelayMeters.RESPONSE_BYTES).tags(tags).summary();
		return summary == null ? 0 : summary.totalAmount();
	}

	private double rejections(String... tags) {
		Counter counter = registry.find(RelayMeters.INTERCEPTOR_REJECTIONS).tags(tags).counter();
		return counter == null ? 0 : counter.count();
	}

	private double openStreams(String server) {
		Gauge gauge = registry.find(RelayMeters.ACTIVE_STREAMS).tag(RelayMeters.SERVER, server).gauge();
		return gauge == null ? -1 : gauge.value();
	}

}
