package dev.mcprelay.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;

import dev.mcprelay.config.AccessLogProperties;
import dev.mcprelay.config.ConnectionPoolProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.ShutdownProperties;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.testsupport.CapturedLogs;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RelayIntegrationTest;
import dev.mcprelay.testsupport.TestUpstreams;
import reactor.core.publisher.Mono;

/**
 * One access-log line per request, with its fields and without any configured secret, client credential, header
 * value or argument content; text a client chose cannot break the line.
 */
class AccessLogTest extends RelayIntegrationTest {

	private static final String ACCESS = "INFO mcp.relay.access ";

	@Test
	void oneLinePerRequestWithItsFieldsAndNoSecret() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":\"call-42\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"result-secret-9\"}]}}")));

		http().send(http().post("scripted-headers", "{\"jsonrpc\":\"2.0\",\"id\":\"call-42\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"password\":\"argument-secret-7\"}}}")
			.header("Authorization", "Bearer client-credential-3")
			.header("X-Client-Tenant", "tenant-header-value-5"));

		String line = awaitAccessLine("id=call-42");
		assertThat(line).matches(ACCESS + "server=scripted-headers client=- http_method=POST rpc_method=tools/call id=call-42 "
				+ "status=200 upstream_status=200 outcome=forwarded duration_ms=\\d+ bytes=\\d+ interceptor=- rule=- reason=- "
				+ "request_id=[0-9a-f]{32} trace_id=-");
		assertThat(String.join("\n", CapturedLogs.all())).doesNotContain(UPSTREAM_TOKEN.substring(7))
			.doesNotContain(STATIC_KEY)
			.doesNotContain(QUERY_SECRET)
			.doesNotContain("client-credential-3")
			.doesNotContain("tenant-header-value-5")
			.doesNotContain("argument-secret-7")
			.doesNotContain("result-secret-9");
	}

	@Test
	void failuresCarryTheirReasonAndNoUpstreamStatus() {
		http().send(http().post("refused", RawHttp.toolsCall("refused-1", "echo")));

		assertThat(awaitAccessLine("id=refused-1")).contains("server=refused")
			.as("the client's status, and none of the upstream's").contains("status=502 upstream_status=- outcome=failed")
			.contains("reason=upstream_unreachable request_id=");
	}

	@Test
	void theRequestIdIsTheClientsXRequestIdOrOneMadeAndComesBackAndGoesUpstream() {
		TestUpstreams.SCRIPTED.script((request, response) -> response.status(200)
			.header("Content-Type", "application/json")
			.header("X-Request-Id", "the-upstream-echo")
			.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":\"given-1\",\"result\":{}}")));

		var given = http().send(http().post("scripted", RawHttp.toolsCall("given-1", "echo"))
			.header("X-Request-Id", "trace-me-7f3a"));
		assertThat(given.headers().allValues("X-Request-Id")).as("one id back, the client's").containsExactly("trace-me-7f3a");
		assertThat(TestUpstreams.SCRIPTED.lastSeen().headers().get("X-Request-Id")).containsExactly("trace-me-7f3a");
		assertThat(awaitAccessLine("id=given-1")).contains(" request_id=trace-me-7f3a ");

		var made = http().send(http().post("unknown-server-x", RawHttp.toolsCall("made-1", "echo"))
			.header("X-Request-Id", "has a space"));
		String id = made.headers().firstValue("X-Request-Id").orElseThrow();
		assertThat(id).as("an unusable id is replaced by one the relay makes").matches("[0-9a-f]{32}");
		assertThat(awaitAccessLine("request_id=" + id)).as("an unknown server is logged as the path named it")
			.startsWith(ACCESS + "server=unknown-server-x client=- ")
			.contains(" status=404 upstream_status=- outcome=client_error ")
			.contains(" reason=unknown_server ");
	}

	@Test
	void textAClientChoseCannotForgeOrFloodALine() {
		AccessLog log = new AccessLog(properties(AccessLogProperties.Format.TEXT));
		ExchangeRecord record = new ExchangeRecord(HttpMethod.POST);
		record.server("github");
		record.payload(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\\n" + "INFO mcp.relay.access server=forged" + "\\\"q\","
				+ "\"method\":\"" + "m".repeat(500) + "\"}"));

		log.write(record);

		String line = lastAccessLine();
		assertThat(line).doesNotContain("\n").contains("id=\"x\\nINFO mcp.relay.access server=forged\\\"q\"");
		assertThat(line).contains("rpc_method=" + "m".repeat(AccessLog.MAX_VALUE_LENGTH) + "...");
	}

	@Test
	void jsonFormatWritesOneObjectPerLine() throws Exception {
		AccessLog log = new AccessLog(properties(AccessLogProperties.Format.JSON));
		ExchangeRecord record = new ExchangeRecord(HttpMethod.GET);
		record.server("github");
		record.forwarded(200);

		log.write(record);

		String json = lastAccessLine().substring(ACCESS.length());
		assertThat(JsonRpcParser.mapper().readTree(json).toString()).matches("\\{\"server\":\"github\",\"client\":null,\"http_method\":\"GET\","
				+ "\"rpc_method\":null,\"id\":null,\"status\":null,\"upstream_status\":200,\"outcome\":\"forwarded\","
				+ "\"duration_ms\":\\d+,\"bytes\":0,\"interceptor\":null,\"rule\":null,\"reason\":null,\"request_id\":null,"
				+ "\"trace_id\":null}");
	}

	private static String awaitAccessLine(String containing) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> CapturedLogs.all().stream().anyMatch(l -> l.startsWith(ACCESS) && l.contains(containing)));
		List<String> lines = CapturedLogs.all().stream()
			.filter(l -> l.startsWith(ACCESS) && l.contains(containing))
			.toList();
		assertThat(lines).as("exactly one line for the request").hasSize(1);
		return lines.get(0);
	}

	private static String lastAccessLine() {
		List<String> lines = CapturedLogs.all().stream().filter(l -> l.startsWith(ACCESS)).toList();
		return lines.get(lines.size() - 1);
	}

	private static RelayProperties properties(AccessLogProperties.Format format) {
		return dev.mcprelay.testsupport.BoundProperties.of(Map.of("security.mode", "none", "access-log.format",
				format.name().toLowerCase(java.util.Locale.ROOT), "shutdown.stream-grace-period", "1s",
				"connection-pool.max-connections", "10", "connection-pool.max-idle-time", "1s"));
	}

	private static dev.mcprelay.jsonrpc.JsonRpcPayload parse(String json) {
		try {
			return JsonRpcParser.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
		}
		catch (dev.mcprelay.jsonrpc.JsonRpcParseException ex) {
			throw new AssertionError(ex);
		}
	}

}
