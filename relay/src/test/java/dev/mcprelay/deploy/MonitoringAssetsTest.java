package dev.mcprelay.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.yaml.snakeyaml.Yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.DebianTool;
import dev.mcprelay.testsupport.McpSession;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.RedisServerProcess;
import dev.mcprelay.testsupport.ScriptedUpstream;
import dev.mcprelay.testsupport.TestUpstreams;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The monitoring assets under {@code deploy/}: the Prometheus alert rules pass {@code promtool check rules} and their
 * unit tests ({@code promtool test rules}); the Grafana dashboard's panels each have a datasource and a target, and
 * its expressions parse; and every relay metric named by the rules, their tests, the dashboard and the PromQL of the
 * README (and of {@code docs/*.md}) is exported by a real relay, with the labels they select and group by, once real
 * traffic has gone through it. A renamed meter or tag turns this test red.
 */
class MonitoringAssetsTest {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final Pattern METRIC = Pattern.compile("\\bmcp_relay_[a-z0-9_]*[a-z0-9]\\b");

	/** A relay metric with a label selector: {@code mcp_relay_x{a="b", c!~"d"}}. */
	private static final Pattern SELECTOR = Pattern.compile("\\b(mcp_relay_[a-z0-9_]*[a-z0-9])\\s*\\{([^}]*)}");

	private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)\\s*\"");

	/** {@code by (a, b)}, {@code without (a)}, {@code on (a)}, {@code ignoring (a)}, {@code group_left (a)}. */
	private static final Pattern GROUPING = Pattern
		.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");

	/** Labels Prometheus adds to every scraped series, or that the query creates. */
	private static final Set<String> ADDED_LABELS = Set.of("job", "instance");

	/** The source suffix of text that names metrics but is no PromQL. */
	private static final String PROSE = "(annotations)";

	private static final Pattern PROMQL_BLOCK = Pattern.compile("```promql\\R(.*?)```", Pattern.DOTALL);

	private static final String API_KEY = "monitoring-assets-test-key-0001";

	/** A key of a client not marked for the management endpoints. */
	private static final String PLAIN_KEY = "monitoring-assets-test-key-0002";

	private static final Path ROOT = repositoryRoot();

	private static final Path RULES = ROOT.resolve("deploy/prometheus/mcp-relay-alerts.yml");

	private static final Path RULE_TESTS = ROOT.resolve("deploy/prometheus/mcp-relay-alerts.test.yml");

	private static final Path DASHBOARD = ROOT.resolve("deploy/grafana/mcp-relay-dashboard.json");

	/** The last scrape, kept for a failure's reader. */
	private static final Path SCRAPE_COPY = Path.of("target", "monitoring-assets-scrape.txt");

	@Test
	void alertRulesAreValid() throws Exception {
		Promtool.run("check", "rules", RULES.toString());
	}

	@Test
	void alertRulesPassTheirUnitTests() throws Exception {
		Promtool.run("test", "rules", RULE_TESTS.toString());
	}

	@Test
	void everyDashboardPanelHasADatasourceAndATargetAndItsExpressionsParse() throws Exception {
		JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
		assertThat(dashboard.path("schemaVersion").asInt()).as("schemaVersion").isGreaterThanOrEqualTo(36);
		Map<String, JsonNode> variables = new LinkedHashMap<>();
		dashboard.path("templating")
			.path("list")
			.forEach(variable -> variables.put(variable.path("name").asText(), variable));
		assertThat(variables).as("template variables").containsKeys("datasource", "server", "virtual_server");
		assertThat(variables.get("datasource").path("type").asText()).isEqualTo("datasource");
		assertThat(variables.get("datasource").path("query").asText()).isEqualTo("prometheus");
		for (String name : List.of("server", "virtual_server")) {
			assertThat(variableQuery(variables.get(name))).as("variable %s", name).startsWith("label_values(");
		}

		List<JsonNode> panels = panels(dashboard);
		assertThat(panels).as("panels").hasSizeGreaterThanOrEqualTo(10);
		ArrayNode recordingRules = JSON.createArrayNode();
		for (JsonNode panel : panels) {
			String title = panel.path("title").asText();
			assertThat(panel.path("datasource").path("uid").asText()).as("datasource of panel '%s'", title)
				.isEqualTo("${datasource}");
			assertThat(panel.path("targets")).as("targets of panel '%s'", title).isNotEmpty();
			for (JsonNode target : panel.path("targets")) {
				String expr = target.path("expr").asText();
				assertThat(expr).as("expression of panel '%s'", title).contains("mcp_relay_");
				assertThat(target.path("datasource").path("uid").asText("${datasource}"))
					.as("datasource of a target of panel '%s'", title)
					.isEqualTo("${datasource}");
				recordingRules.addObject()
					.put("record", "dashboard_panel_" + panel.path("id").asInt() + "_" + target.path("refId").asText())
					.put("expr", withGrafanaVariables(expr));
			}
		}
		// promtool has no query parser of its own: each expression becomes a recording rule (YAML reads JSON).
		ObjectNode rules = JSON.createObjectNode();
		rules.putArray("groups").addObject().put("name", "dashboard").set("rules", recordingRules);
		Path file = Files.createTempFile("dashboard-expressions", ".yml");
		try {
			Files.writeString(file, JSON.writeValueAsString(rules));
			Promtool.run("check", "rules", file.toString());
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	@Test
	void everyMetricTheAssetsNameIsExportedByARealRelay() throws Exception {
		Map<String, List<String>> expressions = expressionsBySource();
		try (RedisServerProcess redis = RedisServerProcess.start(); ScriptedUpstream streaming = new ScriptedUpstream()) {
			streaming.scriptWithBody(MonitoringAssetsTest::streamingServer);
			ConfigurableApplicationContext relay = startRelay(redis.port(), streaming);
			try {
				int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
				Scrape beforeTraffic = Scrape.parse(scrape(port));
				assertThat(countersNamed(expressions).stream().filter(name -> !COUNTED_AS_TRAFFIC_COMES.contains(name)
						&& !beforeTraffic.has(name)).toList())
					.as("failure counters the alerts and the dashboard watch, exported at 0 before any traffic (a counter "
							+ "that appears only at its first increment shows no increase for it, and a panel 'No data')")
					.isEmpty();
				driveTraffic(relay, redis, port);
				// Meters are recorded when an exchange ends, a moment after the client has its answer.
				await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
					String text = scrape(port);
					Files.createDirectories(SCRAPE_COPY.getParent());
					Files.writeString(SCRAPE_COPY, text);
					Scrape scrape = Scrape.parse(text);
					assertThat(problems(expressions, scrape)).as("relay metrics and labels the assets use but "
							+ "the relay does not export (scraped from /actuator/prometheus after real traffic; the scrape is "
							+ "in " + SCRAPE_COPY.toAbsolutePath() + ")").isEmpty();
					assertThat(meterTableProblems(scrape)).as("docs/operations.md's table of meters against the meters "
							+ "the relay exports: each row's type, and every meter in a row").isEmpty();
					for (String counter : DECLARED_SERIES) {
						assertThat(scrape.series(counter)).as("the series of %s after traffic, each exported at 0 before "
								+ "it (a reason of the security mode, an interceptor of a server, a rule)", counter)
							.isNotEmpty()
							.isSubsetOf(beforeTraffic.series(counter));
					}
				});
			}
			finally {
				relay.close();
			}
		}
	}

	/** Every PromQL expression of the assets, by where it comes from. */
	private static Map<String, List<String>> expressionsBySource() throws IOException {
		Map<String, List<String>> expressions = new LinkedHashMap<>();
		Yaml yaml = new Yaml();
		Map<String, Object> rules = yaml.load(Files.readString(RULES));
		List<String> alertExpressions = new ArrayList<>();
		List<String> annotations = new ArrayList<>();
		for (Map<String, Object> group : maps(rules.get("groups"))) {
			for (Map<String, Object> rule : maps(group.get("rules"))) {
				alertExpressions.add(String.valueOf(rule.get("expr")));
				if (rule.get("annotations") instanceof Map<?, ?> texts) {
					texts.values().forEach(text -> annotations.add(String.valueOf(text)));
				}
			}
		}
		expressions.put(ROOT.relativize(RULES).toString(), alertExpressions);
		// What the comments and the READMEs say about meters must name meters that exist (prose: names, not labels).
		expressions.put(ROOT.relativize(RULES).toString() + " comments " + PROSE, Files.readAllLines(RULES).stream()
			.filter(line -> line.strip().startsWith("#"))
			.toList());
		try (Stream<Path> readmes = Files.walk(ROOT.resolve("deploy"))) {
			for (Path readme : readmes.filter(file -> file.toString().endsWith(".md")).sorted().toList()) {
				expressions.put(ROOT.relativize(readme).toString() + " " + PROSE, Files.readAllLines(readme));
			}
		}
		// Annotations that name a metric send their reader to it: the name must exist (prose has no labels to check).
		expressions.put(ROOT.relativize(RULES).toString() + " " + PROSE, annotations);

		Map<String, Object> ruleTests = yaml.load(Files.readString(RULE_TESTS));
		List<String> series = new ArrayList<>();
		for (Map<String, Object> test : maps(ruleTests.get("tests"))) {
			for (Map<String, Object> input : maps(test.get("input_series"))) {
				series.add(String.valueOf(input.get("series")));
			}
		}
		expressions.put(ROOT.relativize(RULE_TESTS).toString() + " (input series)", series);

		JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
		List<String> panelExpressions = new ArrayList<>();
		for (JsonNode panel : panels(dashboard)) {
			panel.path("targets").forEach(target -> panelExpressions.add(withGrafanaVariables(target.path("expr").asText())));
		}
		dashboard.path("templating").path("list").forEach(variable -> {
			if (variable.path("type").asText().equals("query")) {
				panelExpressions.add(variableQuery(variable));
			}
		});
		expressions.put(ROOT.relativize(DASHBOARD).toString(), panelExpressions);

		List<Path> markdown = new ArrayList<>(List.of(ROOT.resolve("README.md")));
		Path docs = ROOT.resolve("docs");
		if (Files.isDirectory(docs)) {
			try (Stream<Path> files = Files.list(docs)) {
				files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(markdown::add);
			}
		}
		for (Path file : markdown) {
			List<String> promql = new ArrayList<>();
			Matcher block = PROMQL_BLOCK.matcher(Files.readString(file));
			while (block.find()) {
				block.group(1).lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
					.forEach(promql::add);
			}
			expressions.put(ROOT.relativize(file).toString() + " (PromQL)", promql);
		}
		assertThat(expressions.get(ROOT.relativize(RULES).toString())).as("alert rules").hasSizeGreaterThanOrEqualTo(5);
		assertThat(expressions.get("docs/operations.md (PromQL)")).as("PromQL lines of docs/operations.md").isNotEmpty();
		return expressions;
	}

	/**
	 * What the assets name that the scrape lacks: a relay metric no sample has (a histogram's {@code _bucket},
	 * {@code _count} and {@code _sum} as such; its base name by its {@code # TYPE} line), and a label an expression
	 * selects or groups by that no series of its metrics carries.
	 */
	private static List<String> problems(Map<String, List<String>> expressions, Scrape scrape) {
		List<String> problems = new ArrayList<>();
		expressions.forEach((source, list) -> {
			for (String expression : list) {
				Set<String> metrics = new LinkedHashSet<>();
				Matcher metric = METRIC.matcher(expression);
				while (metric.find()) {
					metrics.add(metric.group());
				}
				for (String name : metrics) {
					if (!scrape.has(name)) {
						problems.add(source + ": metric " + name + " is not exported, in: " + oneLine(expression));
					}
				}
				Matcher selector = SELECTOR.matcher(source.endsWith(PROSE) ? "" : expression);
				while (selector.find()) {
					Matcher matcher = MATCHER.matcher(selector.group(2));
					while (matcher.find()) {
						String label = matcher.group(1);
						if (scrape.has(selector.group(1)) && !ADDED_LABELS.contains(label)
								&& !scrape.labels(selector.group(1)).contains(label)) {
							problems.add(source + ": " + selector.group(1) + " has no label " + label + ", in: "
									+ oneLine(expression));
						}
					}
				}
				if (source.endsWith(PROSE) || !metrics.stream().allMatch(scrape::has)) {
					continue; // prose, or a metric reported above whose labels are unknown
				}
				Set<String> carried = new TreeSet<>(ADDED_LABELS);
				metrics.forEach(name -> carried.addAll(scrape.labels(name)));
				Matcher grouping = GROUPING.matcher(expression);
				while (grouping.find()) {
					for (String label : grouping.group(1).split(",")) {
						label = label.strip();
						if (!label.isEmpty() && !metrics.isEmpty() && !carried.contains(label)) {
							problems.add(source + ": no series of " + metrics + " has label " + label + ", in: "
									+ oneLine(expression));
						}
					}
				}
			}
		});
		return problems;
	}

	/**
	 * Counters the relay registers as traffic comes, by tag values no configuration knows beforehand (a request's method,
	 * status class and outcome), a virtual server's messages to its members as its clients' requests: their panels read 0
	 * only after traffic.
	 */
	private static final Set<String> COUNTED_AS_TRAFFIC_COMES = Set.of("mcp_relay_requests_total",
			"mcp_relay_virtual_member_requests_total");

	/**
	 * Failure counters whose every series (tag values) the configuration names: each must be exported at 0 before the
	 * traffic that increments it, not only under its name.
	 */
	private static final Set<String> DECLARED_SERIES = Set.of("mcp_relay_auth_failures_total",
			"mcp_relay_interceptor_rejections_total", "mcp_relay_rate_limit_rejections_total");

	/** Every {@code *_total} the alert rules and the dashboard name. */
	private static Set<String> countersNamed(Map<String, List<String>> expressions) {
		Set<String> counters = new TreeSet<>();
		expressions.forEach((source, list) -> {
			if (source.startsWith("deploy/prometheus/mcp-relay-alerts.yml") && !source.endsWith(PROSE)
					|| source.startsWith("deploy/grafana")) {
				list.forEach(expression -> {
					Matcher metric = METRIC.matcher(expression);
					while (metric.find()) {
						if (metric.group().endsWith("_total")) {
							counters.add(metric.group());
						}
					}
				});
			}
		});
		assertThat(counters).as("counters the alerts and the dashboard watch").hasSizeGreaterThanOrEqualTo(8);
		return counters;
	}

	/** A row of the meters table: {@code | `name` | type | ...}. */
	private static final Pattern METER_ROW = Pattern.compile("^\\| `(mcp_[a-z0-9_]+)` \\| ([^|]+) \\|");

	/**
	 * What docs/operations.md's table of meters gets wrong: a row whose type is not the one the relay exports
	 * ({@code # TYPE}: a timer or a distribution with buckets is a histogram), a row of a meter the relay does not export,
	 * and a meter of the relay's it exports that no row names.
	 */
	private static List<String> meterTableProblems(Scrape scrape) throws IOException {
		List<String> problems = new ArrayList<>();
		Set<String> documented = new TreeSet<>();
		for (String line : Files.readAllLines(ROOT.resolve("docs/operations.md"))) {
			Matcher row = METER_ROW.matcher(line);
			if (!row.find()) {
				continue;
			}
			String name = row.group(1);
			String type = row.group(2).strip().split("[ ,]")[0];
			documented.add(name);
			String exported = scrape.type(name);
			if (exported == null) {
				// counted as it happens: spans when tracing exports them; a virtual server's undelivered messages when a
				// member's message finds no client to take it, and streams a reload ended when it removes their server,
				// which the traffic here never makes
				if (!name.equals("mcp_relay_tracing_spans_total")
						&& !name.equals("mcp_relay_virtual_messages_undelivered_total")
						&& !name.equals("mcp_relay_streams_ended_total")) {
					problems.add(name + " is in the table and not exported");
				}
				continue;
			}
			String expected = switch (type) {
				case "timer", "histogram" -> "histogram";
				default -> type;
			};
			if (!expected.equals(exported)) {
				problems.add(name + " is a " + type + " in the table and exported as a " + exported);
			}
		}
		scrape.types().forEach((name, type) -> {
			String base = name.replaceAll("_(total|max)$", "");
			boolean relays = base.startsWith("mcp_relay_") || base.startsWith("mcp_server_") || base.startsWith("mcp_client_");
			if (relays && !name.endsWith("_max") && documented.stream().noneMatch(row -> row.equals(name)
					|| row.equals(name + "_total") || row.replaceAll("_total$", "").equals(base))) {
				problems.add(name + " (" + type + ") is exported and in no row of the table");
			}
		});
		return problems;
	}

	/**
	 * A relay over Redis, in API-key mode with one session per caller, in front of: the SDK's MCP servers (streamable
	 * {@code sdk}, stateless {@code sdk-json}; {@code guarded} with a tool deny list; {@code limited} with a rate limit
	 * of one call; {@code token}, whose upstream token cannot be had), a scripted server that holds a GET stream open
	 * ({@code streaming}), one that refuses connections ({@code down}), a legacy SSE one ({@code legacy}), and virtual
	 * server {@code hub} over {@code sdk-json}, {@code guarded} and {@code down}, without prefixes, so names clash.
	 */
	private static ConfigurableApplicationContext startRelay(int redisPort, ScriptedUpstream streaming) {
		String sdk = TestUpstreams.SDK.url("/mcp");
		String stateless = TestUpstreams.SDK.url("/stateless");
		String refused = "http://127.0.0.1:" + TestUpstreams.REFUSED_PORT;
		String[] args = { "--server.port=0", "--server.address=127.0.0.1",
				"--mcp-relay.security.mode=api-key",
				"--mcp-relay.security.api-keys[0].client=monitoring",
				"--mcp-relay.security.api-keys[0].key-sha256=" + sha256(API_KEY),
				"--mcp-relay.security.api-keys[0].servers[0]=*",
				"--mcp-relay.security.api-keys[0].management=true",
				"--mcp-relay.security.api-keys[1].client=plain",
				"--mcp-relay.security.api-keys[1].key-sha256=" + sha256(PLAIN_KEY),
				"--mcp-relay.security.api-keys[1].servers[0]=sdk-json",
				"--mcp-relay.sessions.store=redis",
				"--mcp-relay.sessions.max-per-caller=1",
				"--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redisPort,
				"--mcp-relay.servers.sdk.url=" + sdk,
				"--mcp-relay.servers.sdk-json.url=" + stateless,
				"--mcp-relay.servers.streaming.url=" + streaming.url("/mcp"),
				"--mcp-relay.servers.guarded.url=" + stateless,
				"--mcp-relay.servers.guarded.tools.deny[0]=secret_*",
				"--mcp-relay.servers.limited.url=" + stateless,
				"--mcp-relay.servers.down.url=" + refused + "/mcp",
				"--mcp-relay.servers.token.url=" + stateless,
				"--mcp-relay.servers.token.oauth2.token-uri=" + refused + "/oauth2/token",
				"--mcp-relay.servers.token.oauth2.client-id=relay",
				"--mcp-relay.servers.token.oauth2.client-secret=s3cret",
				"--mcp-relay.servers.legacy.url=" + refused + "/sse",
				"--mcp-relay.servers.legacy.transport=sse",
				"--mcp-relay.virtual-servers.hub.members[0]=sdk-json",
				"--mcp-relay.virtual-servers.hub.members[1]=guarded",
				"--mcp-relay.virtual-servers.hub.members[2]=down",
				"--mcp-relay.virtual-servers.hub.tool-prefix=",
				"--mcp-relay.servers.search.url=" + sdk,
				"--mcp-relay.servers.search.tool-search.enabled=true",
				"--mcp-relay.rate-limits[0].name=limited-calls",
				"--mcp-relay.rate-limits[0].match.server=limited",
				"--mcp-relay.rate-limits[0].limit=1",
				"--mcp-relay.rate-limits[0].period=1h" };
		return new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run(args);
	}

	private static void driveTraffic(ConfigurableApplicationContext relay, RedisServerProcess redis, int port)
			throws Exception {
		RawHttp http = new RawHttp(port, "X-Api-Key", API_KEY);
		// A streamable server: initialize, tools/list, tools/call (answered with a stream).
		McpSession session = McpSession.open(http, "sdk");
		assertThat(session.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}").statusCode()).isEqualTo(200);
		assertThat(session.post(RawHttp.toolsCall(2, "echo")).statusCode()).isEqualTo(200);

		// A GET stream (the SDK's server sends its headers only with a first event: a scripted server sends one),
		// open until the client leaves. A client of its own: the connection it abandons is never reused.
		HttpClient streams = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		McpSession streamingSession = McpSession.open(http, "streaming");
		HttpResponse<InputStream> stream = streams.send(http.request("streaming")
			.header("Accept", "text/event-stream")
			.header("Mcp-Session-Id", streamingSession.id())
			.header("MCP-Protocol-Version", McpSession.PROTOCOL_VERSION)
			.GET()
			.build(), HttpResponse.BodyHandlers.ofInputStream());
		assertThat(stream.statusCode()).as("the GET stream").isEqualTo(200);
		MeterRegistry registry = relay.getBean(MeterRegistry.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> openStreams(registry, "streaming") == 1);
		stream.body().close();

		// A stateless server (JSON), a rejected call (deny list), a rate-limited call, a failed one, one with no
		// upstream token, and a caller without a key.
		assertThat(http.send(http.post("sdk-json", RawHttp.toolsCall(3, "echo"))).statusCode()).isEqualTo(200);
		assertThat(RawHttp.json(http.send(http.post("guarded", RawHttp.toolsCall(4, "secret_admin"))).body())
			.has("error")).as("a denied tool is refused").isTrue();
		assertThat(http.send(http.post("limited", RawHttp.toolsCall(5, "echo"))).statusCode()).isEqualTo(200);
		assertThat(http.send(http.post("limited", RawHttp.toolsCall(6, "echo"))).statusCode()).isEqualTo(429);
		assertThat(http.send(http.post("down", RawHttp.toolsCall(7, "echo"))).statusCode()).isGreaterThanOrEqualTo(500);
		assertThat(http.send(http.post("token", RawHttp.toolsCall(8, "echo"))).statusCode()).isGreaterThanOrEqualTo(500);
		RawHttp anonymous = new RawHttp(port);
		assertThat(anonymous.send(anonymous.post("sdk-json", RawHttp.toolsCall(9, "echo"))).statusCode()).as("no key")
			.isEqualTo(401);
		assertThat(anonymous.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
			.header("X-Api-Key", PLAIN_KEY)
			.timeout(Duration.ofSeconds(10))).statusCode()).as("a client not marked for management").isEqualTo(403);

		// The virtual server: its members' tools clash (no prefix), one member is down; a second session of the same
		// caller evicts the first (max-per-caller 1).
		McpSession virtual = McpSession.open(http, "hub");
		assertThat(virtual.post("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"}").statusCode()).isEqualTo(200);
		assertThat(virtual.post(RawHttp.toolsCall(11, "echo")).statusCode()).isEqualTo(200);
		McpSession.open(http, "hub");

		// Redis goes away: the rate-limit check cannot reach it (the rule fails open).
		redis.kill();
		http.send(http.post("limited", RawHttp.toolsCall(12, "echo")));
	}

	/**
	 * A scripted MCP server: answers {@code initialize} with session {@code s-1}, takes notifications, and holds a GET
	 * stream open after one event.
	 */
	private static Publisher<Void> streamingServer(HttpServerRequest request, HttpServerResponse response, String body) {
		if (request.method().name().equals("GET")) {
			return response.status(200)
				.header("Content-Type", "text/event-stream")
				.sendString(Flux.concat(Mono.just("id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
						+ "\"notifications/tools/list_changed\"}\n\n"), Flux.never()));
		}
		if (body.contains("\"initialize\"")) {
			return response.status(200)
				.header("Content-Type", "application/json")
				.header("Mcp-Session-Id", "s-1")
				.sendString(Mono.just("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\""
						+ McpSession.PROTOCOL_VERSION + "\",\"capabilities\":{},\"serverInfo\":{\"name\":\"streaming\","
						+ "\"version\":\"1\"}}}"));
		}
		return response.status(202).send();
	}

	private static double openStreams(MeterRegistry registry, String server) {
		Gauge gauge = registry.find(RelayMeters.ACTIVE_STREAMS).tag(RelayMeters.SERVER, server).gauge();
		return gauge == null ? -1 : gauge.value();
	}

	/** {@code /actuator/prometheus}, which in {@code api-key} mode takes a key marked {@code management: true}. */
	private static String scrape(int port) {
		HttpResponse<String> response = new RawHttp(port).send(HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
			.header("X-Api-Key", API_KEY)
			.timeout(Duration.ofSeconds(10)));
		assertThat(response.statusCode()).as("/actuator/prometheus").isEqualTo(200);
		return response.body();
	}

	/** Every panel, those inside collapsed rows included; rows themselves are not panels. */
	private static List<JsonNode> panels(JsonNode dashboard) {
		List<JsonNode> panels = new ArrayList<>();
		for (JsonNode panel : dashboard.path("panels")) {
			if (panel.path("type").asText().equals("row")) {
				panel.path("panels").forEach(panels::add);
			}
			else {
				panels.add(panel);
			}
		}
		return panels;
	}

	private static String variableQuery(JsonNode variable) {
		JsonNode query = variable.path("query");
		return query.isObject() ? query.path("query").asText() : query.asText();
	}

	/** The expression as Grafana sends it, with every server and virtual server chosen and a 5-minute rate interval. */
	private static String withGrafanaVariables(String expr) {
		return expr.replace("$__rate_interval", "5m")
			.replace("$__interval", "1m")
			.replaceAll("\\$\\{?virtual_server}?", "(hub|other)")
			.replaceAll("\\$\\{?server}?", "(sdk|sdk-json)");
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> maps(Object list) {
		return list == null ? List.of() : (List<Map<String, Object>>) list;
	}

	private static String oneLine(String expression) {
		return expression.replaceAll("\\s+", " ").strip();
	}

	private static String sha256(String key) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The repository's root: the first directory up from the working directory (a module's) with deploy/prometheus. */
	private static Path repositoryRoot() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isDirectory(dir.resolve("deploy/prometheus"))) {
				return dir;
			}
		}
		throw new IllegalStateException("No directory with deploy/prometheus above " + Path.of("").toAbsolutePath());
	}

	/** The samples of a Prometheus text scrape: metric names, their labels, and the declared types. */
	private record Scrape(Map<String, Set<String>> labelsByName, Map<String, String> types,
			Map<String, Set<String>> seriesByName) {

		private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");

		static Scrape parse(String text) {
			Map<String, Set<String>> labels = new TreeMap<>();
			Map<String, String> types = new TreeMap<>();
			Map<String, Set<String>> series = new TreeMap<>();
			for (String line : text.split("\n")) {
				if (line.startsWith("# TYPE ")) {
					String[] parts = line.split(" ");
					types.put(parts[2], parts[3]);
				}
				else if (!line.isBlank() && !line.startsWith("#")) {
					int brace = line.indexOf('{');
					int space = line.indexOf(' ');
					int end = brace >= 0 && brace < space ? brace : space;
					Set<String> names = labels.computeIfAbsent(line.substring(0, end), name -> new TreeSet<>());
					series.computeIfAbsent(line.substring(0, end), name -> new TreeSet<>())
						.add(end == brace ? line.substring(brace, line.lastIndexOf('}') + 1) : "");
					if (end == brace) {
						Matcher label = LABEL.matcher(line.substring(brace, line.lastIndexOf('}') + 1));
						while (label.find()) {
							names.add(label.group(1));
						}
					}
				}
			}
			return new Scrape(labels, types, series);
		}

		/** The label sets of a sample name's series, as written ({@code {a="b",c="d"}}). */
		Set<String> series(String name) {
			return seriesByName.getOrDefault(name, Set.of());
		}

		/** A sample's name, or a histogram's or summary's base name (declared, with its {@code _count} sampled). */
		boolean has(String name) {
			if (labelsByName.containsKey(name)) {
				return true;
			}
			String type = types.get(name);
			return ("histogram".equals(type) || "summary".equals(type)) && labelsByName.containsKey(name + "_count");
		}

		/** The {@code # TYPE} of a metric, by its sample name or its base name (a counter's without {@code _total}). */
		String type(String name) {
			String type = types.get(name);
			if (type == null && name.endsWith("_total")) {
				type = types.get(name.substring(0, name.length() - "_total".length()));
			}
			return type;
		}

		Set<String> labels(String name) {
			Set<String> labels = labelsByName.get(name);
			if (labels == null && has(name)) {
				labels = new TreeSet<>(labelsByName.get(name + "_count"));
			}
			return labels == null ? Set.of() : labels;
		}

	}

	/**
	 * Prometheus' {@code promtool} (Debian's {@code prometheus} package). When it is missing, it is installed with
	 * {@code apt-get} (as root, which CI and a fresh machine of this project's kind are); elsewhere the failure says
	 * what to install.
	 */
	private static final class Promtool {

		private static final DebianTool PROMTOOL = new DebianTool("promtool", "prometheus", "This test needs Prometheus' "
				+ "promtool: install Prometheus (Debian/Ubuntu: apt-get install prometheus; macOS: brew install "
				+ "prometheus; or the release archive from prometheus.io) and run the tests again.");

		static void run(String... arguments) throws IOException, InterruptedException {
			List<String> command = new ArrayList<>();
			command.add(locateOrInstall().toString());
			command.addAll(List.of(arguments));
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(60, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new AssertionError(String.join(" ", command) + " did not finish within 60s:\n" + output);
			}
			assertThat(process.exitValue()).as("%s exited with %d:%n%s", String.join(" ", command), process.exitValue(),
					output).isZero();
		}

		private static Path locateOrInstall() throws IOException, InterruptedException {
			return PROMTOOL.locateOrInstall();
		}

	}

}
