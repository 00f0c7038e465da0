package dev.mcprelay.interceptors;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * Rate limits over a real Redis are exact from a relay's first request: two freshly started relays admit exactly a
 * rule's limit between them, and their upstream sees exactly that many; a replica is not ready until its connections
 * to Redis answer; and when Redis is away, each rule does what its {@code on-store-failure} says.
 */
class RateLimitStoreTest {

	private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private final ScriptedUpstream upstream = new ScriptedUpstream();

	private final List<AutoCloseable> started = new ArrayList<>();

	@AfterEach
	void stop() throws Exception {
		for (int i = started.size() - 1; i >= 0; i--) {
			started.get(i).close();
		}
		upstream.close();
	}

	@Test
	void twoFreshRelaysAdmitExactlyTheLimitBetweenThem() throws Exception {
		answerEverything();
		// refilled evenly over an hour, a token every 72 s: the 200 calls take far less, however loaded the machine
		// (over a minute, a token came back every 1.2 s, and a run that took longer admitted a 51st call)
		TwoRelaysOverRedis relays = TwoRelaysOverRedis.start("--mcp-relay.servers.counted.url=" + upstream.url("/mcp"),
				"--mcp-relay.rate-limits[0].name=calls", "--mcp-relay.rate-limits[0].per=client",
				"--mcp-relay.rate-limits[0].limit=50", "--mcp-relay.rate-limits[0].period=1h");
		started.add(relays);

		List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			ConfigurableApplicationContext relay = i % 2 == 0 ? relays.first() : relays.second();
			calls.add(CLIENT.sendAsync(new RawHttp(TwoRelaysOverRedis.port(relay)).post("counted", RawHttp.toolsCall(i,
					"echo")).build(), HttpResponse.BodyHandlers.ofString()));
		}
		List<Integer> statuses = calls.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();

		assertThat(statuses.stream().filter(status -> status == 200)).as("exactly the limit is admitted").hasSize(50);
		assertThat(statuses.stream().filter(status -> status == 429)).as("every other call is limited").hasSize(150);
		assertThat(upstream.seen()).as("the upstream saw exactly the admitted calls").hasSize(50);
		assertThat(storeErrors(relays.first()) + storeErrors(relays.second()))
			.as("no check of a fresh relay was taken for a store failure").isZero();
	}

	@Test
	void aReplicaIsNotReadyUntilRedisAnswers() throws Exception {
		int redisPort = TestUpstreams.freePort();
		ConfigurableApplicationContext relay = relay(redisPort, "--mcp-relay.servers.counted.url=" + upstream.url("/mcp"),
				"--mcp-relay.rate-limits[0].limit=5", "--mcp-relay.rate-limits[0].period=1m");
		started.add(relay::close);
		int port = TwoRelaysOverRedis.port(relay);

		assertThat(readiness(port).statusCode()).as("Redis is not there yet").isEqualTo(503);
		assertThat(get(port, "/actuator/health/liveness").statusCode()).as("and the relay is alive").isEqualTo(200);

		RedisServerProcess redis = RedisServerProcess.start(redisPort);
		started.add(0, redis);
		Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(readiness(port).statusCode())
			.as("ready once its connections to Redis answer").isEqualTo(200));
	}

	@Test
	void whenRedisIsAwayEachRuleDoesWhatItsStoreFailureSays() throws Exception {
		answerEverything();
		TwoRelaysOverRedis relays = TwoRelaysOverRedis.start("--mcp-relay.servers.strict.url=" + upstream.url("/mcp"),
				"--mcp-relay.servers.lenient.url=" + upstream.url("/mcp"), "--mcp-relay.rate-limits[0].name=strict",
				"--mcp-relay.rate-limits[0].match.server=strict", "--mcp-relay.rate-limits[0].limit=100",
				"--mcp-relay.rate-limits[0].period=1m", "--mcp-relay.rate-limits[0].on-store-failure=fail-closed",
				"--mcp-relay.rate-limits[1].name=lenient", "--mcp-relay.rate-limits[1].match.server=lenient",
				"--mcp-relay.rate-limits[1].limit=100", "--mcp-relay.rate-limits[1].period=1m");
		started.add(relays);
		RawHttp http = new RawHttp(TwoRelaysOverRedis.port(relays.first()));
		assertThat(http.send(http.post("strict", RawHttp.toolsCall(1, "echo"))).statusCode()).isEqualTo(200);

		relays.redis().kill();
		upstream.clear();
		HttpResponse<String> strict = http.send(http.post("strict", RawHttp.toolsCall(2, "echo")));
		HttpResponse<String> lenient = http.send(http.post("lenient", RawHttp.toolsCall(3, "echo")));

		assertThat(strict.statusCode()).as(strict.body()).isEqualTo(503);
		assertThat(strict.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(RawHttp.json(strict.body()).at("/error/data/reason").asText()).isEqualTo("rate_limit_unavailable");
		assertThat(RawHttp.json(strict.body()).at("/error/code").asInt()).isEqualTo(-32000);
		assertThat(RawHttp.json(strict.body()).at("/id").asInt()).isEqualTo(2);
		assertThat(lenient.statusCode()).as("fail-open lets it through").isEqualTo(200);
		assertThat(upstream.seen()).as("only the fail-open rule's call reached the upstream").hasSize(1);
		assertThat(storeErrors(relays.first())).isEqualTo(2);
		assertThat(readiness(TwoRelaysOverRedis.port(relays.first())).statusCode())
			.as("a replica that was ready stays ready without Redis: every replica shares it, and what does not need it "
					+ "is still served")
			.isEqualTo(200);
	}

	/** Answers every call, under the call's own id (an answer under another id answers no request of the client's). */
	private void answerEverything() {
		upstream.scriptWithBody((request, response, body) -> response.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":" + RawHttp.json(body).get("id") + ",\"result\":{}}")));
	}

	private static ConfigurableApplicationContext relay(int redisPort, String... args) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.security.mode=none", "--mcp-relay.sessions.store=redis",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort));
		all.addAll(List.of(args));
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)
			.run(all.toArray(String[]::new));
	}

	private static double storeErrors(ConfigurableApplicationContext relay) {
		return relay.getBean(MeterRegistry.class)
			.find(RelayMeters.RATE_LIMIT_STORE_ERRORS)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static HttpResponse<String> readiness(int port) {
		return get(port, "/actuator/health/readiness");
	}

	private static HttpResponse<String> get(int port, String path) {
		return new RawHttp(port).send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10)));
	}

}
