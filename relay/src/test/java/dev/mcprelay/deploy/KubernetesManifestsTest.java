package dev.mcprelay.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.RelayPropertiesValidator;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.SessionStoreKind;
import dev.mcprelay.config.UnknownRelayProperties;
import dev.mcprelay.testsupport.DebianTool;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RedisServerProcess;

/**
 * {@code deploy/kubernetes}: each overlay rendered by kustomize (Debian's kubectl, fetched when missing, and any other
 * kubectl or kustomize on the PATH, which must render the same objects), every object valid against the Kubernetes
 * API schema ({@code interop/validate-kubernetes.mjs}: kubernetes-models, no unknown field either), and what no
 * schema knows: the relay accepts the rendered ConfigMap's application.yml with the Secret the README makes, starts on
 * it and answers every probe the Deployment sends, the pod is locked down, the grace period outlasts the drain, the
 * replica count fits the session store, the Redis, the NetworkPolicies and the Services are wired to what
 * application.yml names, and no secret is written anywhere.
 */
class KubernetesManifestsTest {

	private static final List<String> OVERLAYS = List.of("single", "replicas");

	/** What the README's Secret command expects in the operator's shell: the upstream credentials. */
	private static final Map<String, String> OPERATOR_SHELL = Map.of("GITHUB_TOKEN", "ghp_test-token-not-real",
			"INTERNAL_TOOLS_KEY", "internal-tools-test-key");

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)(?::([^}]*))?}");

	private static final Pattern CONFIG_HASH = Pattern.compile("(mcp-relay-config)-[a-z0-9]{10}");

	/** Properties whose values are credentials: in application.yml they may only name an environment variable. */
	private static final Set<String> SECRET_KEYS = Set.of("authorization", "key-sha256", "client-secret", "private-key",
			"secret", "password");

	/** The API versions of today's Kubernetes for each kind the manifests use (no beta, nothing removed). */
	private static final Set<String> CURRENT_APIS = Set.of("v1/ConfigMap", "v1/Service", "apps/v1/Deployment",
			"apps/v1/StatefulSet", "policy/v1/PodDisruptionBudget", "autoscaling/v2/HorizontalPodAutoscaler",
			"networking.k8s.io/v1/NetworkPolicy");

	private static final Duration PROBE_WAIT = Duration.ofSeconds(20);

	private static Path root;

	private static List<Renderer> renderers;

	private static final Map<String, Overlay> rendered = new LinkedHashMap<>();

	private static Map<String, Object> secret;

	private static String readme;

	@BeforeAll
	static void renderEveryOverlayAndTheReadmesSecret() throws Exception {
		root = repositoryRoot();
		renderers = Renderer.available();
		try (Stream<Path> overlays = Files.list(root.resolve("deploy/kubernetes/overlays"))) {
			assertThat(overlays.filter(Files::isDirectory).map(p -> p.getFileName().toString()))
				.containsExactlyInAnyOrderElementsOf(OVERLAYS);
		}
		for (String name : OVERLAYS) {
			rendered.put(name, new Overlay(name, renderers.get(0).render(overlayDirectory(name))));
		}
		readme = Files.readString(root.resolve("deploy/kubernetes/README.md"));
		secret = secretFromReadme();
	}

	// --- rendering and the schema ---------------------------------------------------------------------------------

	@Test
	void everyKustomizeAtHandRendersTheSameObjects() throws Exception {
		Assumptions.assumeTrue(renderers.size() > 1, "only " + renderers.get(0) + " is installed");
		for (String name : OVERLAYS) {
			Map<String, Object> reference = comparable(rendered.get(name).objects());
			for (Renderer other : renderers.subList(1, renderers.size())) {
				assertThat(comparable(new Overlay(name, other.render(overlayDirectory(name))).objects()))
					.as("overlays/%s rendered by %s and by %s", name, other, renderers.get(0))
					.isEqualTo(reference);
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void everyObjectIsValidAgainstTheKubernetesApiSchema(String name) throws Exception {
		Overlay overlay = rendered.get(name);
		String report = SchemaValidator.validate(overlay.yaml());
		for (Map<String, Object> object : overlay.objects()) {
			assertThat(report).contains("valid " + object.get("apiVersion") + " " + object.get("kind") + "/" + name(object));
			assertThat(object.get("apiVersion") + "/" + object.get("kind"))
				.as("%s/%s uses the API version of today's Kubernetes", object.get("kind"), name(object))
				.isIn(CURRENT_APIS);
		}
		assertThat(SchemaValidator.validate(new Yaml().dump(secret))).as("the README's Secret").contains("0 invalid");
	}

	// --- the relay's own configuration ----------------------------------------------------------------------------

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theRelayAcceptsTheRenderedApplicationYmlWithTheReadmesSecret(String name) throws Exception {
		StandardEnvironment environment = rendered.get(name).environment(Map.of());
		RelayProperties properties = relayProperties(environment);

		List<ConfigurationProblem> problems = new ArrayList<>(UnknownRelayProperties.find(environment));
		problems.addAll(RelayPropertiesValidator.validate(properties, environment));
		assertThat(problems).as("the relay's configuration problems with overlays/%s", name).isEmpty();
		assertThat(properties.servers()).isNotEmpty();
		assertThat(properties.sessions().secret()).as("sessions.secret, from the Secret").isNotBlank();
	}

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theRelayStartsOnTheRenderedConfigurationAndAnswersEveryProbeOfTheDeployment(String name) throws Exception {
		Overlay overlay = rendered.get(name);
		Map<String, Object> container = overlay.relayContainer();
		int serverPort = Binder.get(overlay.environment(Map.of())).bind("server.port", Integer.class).orElse(8080);
		int managementPort = Binder.get(overlay.environment(Map.of()))
			.bind("management.server.port", Integer.class)
			.orElse(serverPort);
		assertThat(managementPort).as("the management endpoints on a port of their own, which needs no credential")
			.isNotEqualTo(serverPort);
		Map<String, String> probes = new LinkedHashMap<>();
		for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
			Map<String, Object> httpGet = map(container, probe, "httpGet");
			assertThat(httpGet).as("%s of the relay, an HTTP GET", probe).isNotNull();
			assertThat(containerPort(container, httpGet.get("port")))
				.as("%s's port is the relay's management.server.port", probe)
				.isEqualTo(managementPort);
			probes.put(probe, (String) httpGet.get("path"));
		}
		Map<String, Object> annotations = map(overlay.find("Deployment", "mcp-relay"), "spec", "template", "metadata",
				"annotations");
		assertThat(annotations).as("scraped where the metrics are")
			.containsEntry("prometheus.io/port", String.valueOf(managementPort))
			.containsEntry("prometheus.io/path", "/actuator/prometheus");
		assertThat(probes).containsEntry("livenessProbe", "/actuator/health/liveness")
			.containsEntry("readinessProbe", "/actuator/health/readiness");

		Path config = Files.createDirectories(Files.createTempDirectory(Path.of("target").toAbsolutePath(), "k8s-")
			.resolve("config"));
		Files.writeString(config.resolve("application.yml"), overlay.applicationYml());
		Map<String, String> env = new LinkedHashMap<>();
		RedisServerProcess redis = overlay.relayProperties().sessions().store() == SessionStoreKind.REDIS
				? RedisServerProcess.start() : null;
		if (redis != null) {
			// The README's way to a Redis of one's own: REDIS_URL in the Secret.
			env.put("REDIS_URL", "redis://127.0.0.1:" + redis.port());
		}
		try (ConfigurableApplicationContext relay = start(overlay.containerEnvironment(env), config,
				"--management.server.port=0", "--management.server.address=127.0.0.1")) {
			int port = ((WebServerApplicationContext) relay).getWebServer().getPort();
			int management = Integer.parseInt(relay.getEnvironment().getProperty("local.management.port"));
			HttpClient http = HttpClient.newBuilder()
				.version(HttpClient.Version.HTTP_1_1)
				.connectTimeout(Duration.ofSeconds(5))
				.build();
			for (Map.Entry<String, String> probe : probes.entrySet()) {
				assertThat(statusWithin(http, URI.create("http://127.0.0.1:" + management + probe.getValue()),
						PROBE_WAIT))
					.as("%s %s, without credentials, on the relay started with overlays/%s", probe.getKey(),
							probe.getValue(), name)
					.isEqualTo(200);
			}
			HttpResponse<String> readiness = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management
					+ "/actuator/health/readiness")).timeout(Duration.ofSeconds(10)).build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(readiness.body()).as("readiness on the management port says what it is made of, so that a replica "
					+ "that is not ready says why (relayStore's reasons)").contains("\"relayStore\"");
			assertThat(statusWithin(http, URI.create("http://127.0.0.1:" + management + "/actuator/prometheus"),
					PROBE_WAIT)).as("Prometheus scrapes the management port without credentials").isEqualTo(200);
			assertThat(statusWithin(http, URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"), PROBE_WAIT))
				.as("the clients' port serves no management endpoint").isNotEqualTo(200);
		}
		finally {
			if (redis != null) {
				redis.close();
			}
		}
	}

	@Test
	void theReplicasApplicationYmlIsTheBasesButForTheSharedStore() throws Exception {
		String baseYml = Files.readString(root.resolve("deploy/kubernetes/base/application.yml"));
		Map<String, Object> base = flatten(loadYaml(baseYml));
		Map<String, Object> replicas = flatten(loadYaml(rendered.get("replicas").applicationYml()));
		Pattern shared = Pattern.compile("^(mcp-relay\\.sessions|spring\\.data\\.redis)\\..*");
		base.keySet().removeIf(key -> shared.matcher(key).matches());
		replicas.keySet().removeIf(key -> shared.matcher(key).matches());
		assertThat(replicas).as("overlays/replicas/application.yml but for sessions and spring.data.redis")
			.isEqualTo(base);
		assertThat(rendered.get("single").applicationYml()).as("overlays/single keeps the base's").isEqualTo(baseYml);
	}

	// --- the pod --------------------------------------------------------------------------------------------------

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void everyContainerRunsAsNonRootOnAReadOnlyRootFileSystemWithNoPrivilegeAndBoundedResources(String name)
			throws IOException {
		Overlay overlay = rendered.get(name);
		for (Map<String, Object> workload : overlay.workloads()) {
			Map<String, Object> pod = map(workload, "spec", "template", "spec");
			assertThat(pod.get("automountServiceAccountToken")).as("%s mounts no API token", name(workload))
				.isEqualTo(false);
			for (Map<String, Object> container : maps(pod.get("containers"))) {
				String what = name(workload) + "/" + container.get("name");
				Map<String, Object> security = map(container, "securityContext");
				assertThat(security).as("%s securityContext", what).isNotNull();
				assertThat(security.get("allowPrivilegeEscalation")).as(what).isEqualTo(false);
				assertThat(security.get("readOnlyRootFilesystem")).as(what).isEqualTo(true);
				assertThat(security.get("privileged")).as(what).isNotEqualTo(true);
				assertThat(map(security, "capabilities").get("drop")).as(what).isEqualTo(List.of("ALL"));
				assertThat(map(security, "capabilities").get("add")).as(what).isNull();
				assertThat(effective(pod, container, "runAsNonRoot")).as("%s runAsNonRoot", what).isEqualTo(true);
				// A user the image names (USER relay:relay) cannot be checked by the kubelet: the uid must be a number.
				assertThat(effective(pod, container, "runAsUser")).as("%s runAsUser", what)
					.isInstanceOfSatisfying(Integer.class, uid -> assertThat(uid).isPositive());
				Object seccomp = effective(pod, container, "seccompProfile");
				assertThat(seccomp).as("%s seccompProfile", what).isEqualTo(Map.of("type", "RuntimeDefault"));
				for (String kind : List.of("requests", "limits")) {
					assertThat(map(container, "resources", kind)).as("%s resources.%s", what, kind)
						.containsKeys("cpu", "memory");
				}
			}
		}
		Map<String, Object> relay = overlay.relayContainer();
		Map<String, Object> pod = overlay.relayPod();
		assertThat(mountedVolume(pod, relay, "/tmp")).as("a writable /tmp").containsKey("emptyDir");
		String dockerfile = Files.readString(root.resolve("Dockerfile"));
		Matcher user = Pattern.compile("(?m)^USER (\\d+):(\\d+)$").matcher(dockerfile);
		assertThat(user.find()).as("the Dockerfile's USER, by number").isTrue();
		assertThat(dockerfile).as("the Dockerfile makes that user with that uid and gid")
			.contains("--uid " + user.group(1)).contains("--gid " + user.group(2));
		assertThat(effective(pod, relay, "runAsUser")).as("runAsUser: the image's user").isEqualTo(Integer.valueOf(user.group(1)));
		assertThat(effective(pod, relay, "runAsGroup")).as("runAsGroup: the image's group")
			.isEqualTo(Integer.valueOf(user.group(2)));
		assertThat(relay.get("image")).asString().startsWith("mcp-relay");
	}

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theConfigMapIsMountedWhereTheImageReadsApplicationYmlAndReloads(String name) {
		Overlay overlay = rendered.get(name);
		Map<String, Object> mount = overlay.configMount();
		String configMap = overlay.configMapName();
		assertThat(overlay.find("ConfigMap", configMap)).as("the ConfigMap %s", configMap).isNotNull();
		assertThat(mount.get("subPath"))
			.as("the ConfigMap is mounted as a folder: the kubelet updates a folder in place (it swaps its ..data link, "
					+ "which the relay watches to reload), never a file mounted with subPath")
			.isNull();
		assertThat(configMap).as("one name for every version of the ConfigMap, so that a change reaches the running "
				+ "pods' folder instead of rolling them").isEqualTo("mcp-relay-config");
		String key = "application.yml";
		assertThat(mount.get("mountPath") + "/" + key).isEqualTo("/app/config/application.yml");
		assertThat(map(overlay.find("ConfigMap", configMap), "data")).containsKey(key);
		assertThat(mount.get("readOnly")).isEqualTo(true);
	}

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theGracePeriodOutlastsThePreStopSleepAndTheRelaysDrain(String name) {
		Overlay overlay = rendered.get(name);
		Binder binder = Binder.get(overlay.environment(Map.of()));
		Duration phase = binder.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(Duration.ofSeconds(30));
		Duration quiet = binder.bind("spring.reactor.netty.shutdown-quiet-period", Duration.class)
			.orElse(Duration.ofSeconds(2));
		Duration streams = overlay.relayProperties().shutdown().streamGracePeriod();
		// Open POST streams first (at most the stream grace period, and never longer than one phase), then the web
		// server's graceful shutdown (one phase), then the event loops' quiet period.
		Duration drain = (streams.compareTo(phase) < 0 ? streams : phase).plus(phase).plus(quiet);

		List<Object> preStop = list(overlay.relayContainer(), "lifecycle", "preStop", "exec", "command");
		assertThat(preStop).as("a preStop sleep, so that endpoints are removed before the drain").hasSize(2)
			.first().isEqualTo("sleep");
		long sleep = Long.parseLong(String.valueOf(preStop.get(1)));
		assertThat(sleep).isPositive();

		Object grace = map(overlay.relayPod()).get("terminationGracePeriodSeconds");
		assertThat(grace).isInstanceOf(Integer.class);
		assertThat(((Integer) grace).longValue()).as("terminationGracePeriodSeconds: preStop %ss + drain %s", sleep, drain)
			.isGreaterThan(sleep + drain.toSeconds());
	}

	// --- replicas and the session store ---------------------------------------------------------------------------

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theReplicaCountFitsTheSessionStore(String name) {
		Overlay overlay = rendered.get(name);
		Map<String, Object> deployment = overlay.find("Deployment", "mcp-relay");
		Map<String, Object> autoscaler = overlay.find("HorizontalPodAutoscaler", "mcp-relay");
		Map<String, Object> budget = overlay.find("PodDisruptionBudget", "mcp-relay");
		SessionStoreKind store = overlay.relayProperties().sessions().store();
		if (name.equals("single")) {
			assertThat(store).isEqualTo(SessionStoreKind.MEMORY);
			assertThat(map(deployment, "spec").get("replicas")).isEqualTo(1);
			assertThat(autoscaler).as("no autoscaler over a memory store").isNull();
			assertThat(budget).as("no disruption budget one pod cannot honour").isNull();
			return;
		}
		assertThat(store).as("several replicas share one store").isEqualTo(SessionStoreKind.REDIS);
		assertThat(overlay.relayProperties().sessions().secret()).as("replicas share sessions.secret").isNotBlank();
		assertThat(map(deployment, "spec").get("replicas")).as("the autoscaler owns the count").isNull();
		assertThat(map(autoscaler, "spec", "scaleTargetRef"))
			.containsEntry("apiVersion", "apps/v1").containsEntry("kind", "Deployment").containsEntry("name", "mcp-relay");
		int min = (Integer) map(autoscaler, "spec").get("minReplicas");
		assertThat(min).isGreaterThanOrEqualTo(2);
		assertThat((Integer) map(autoscaler, "spec").get("maxReplicas")).isGreaterThanOrEqualTo(min);
		assertThat(maps(list(autoscaler, "spec", "metrics"))).anySatisfy(metric -> {
			assertThat(map(metric, "resource")).containsEntry("name", "cpu");
			assertThat(map(metric, "resource", "target")).containsEntry("type", "Utilization");
		});
		assertThat(map(overlay.relayContainer(), "resources", "requests")).as("CPU utilization is relative to it")
			.containsKey("cpu");
		assertThat(selects(map(budget, "spec", "selector"), overlay.relayPodLabels())).isTrue();
		Map<String, Object> spec = map(budget, "spec");
		assertThat(spec.get("maxUnavailable") != null ? (Integer) spec.get("maxUnavailable") >= 1
				: (Integer) spec.get("minAvailable") < min)
			.as("the budget lets a drain evict one pod at the autoscaler's minimum").isTrue();
	}

	@Test
	void theReplicasReachTheRedisOfTheirOverlayThroughItsHeadlessService() {
		Overlay overlay = rendered.get("replicas");
		DataRedisProperties redis = Binder.get(overlay.environment(Map.of()))
			.bindOrCreate("spring.data.redis", DataRedisProperties.class);
		URI url = redis.getUrl() != null ? URI.create(redis.getUrl()) : null;
		String host = url != null ? url.getHost() : redis.getHost();
		int port = url != null ? (url.getPort() == -1 ? 6379 : url.getPort()) : redis.getPort();

		Map<String, Object> service = overlay.find("Service", host);
		assertThat(service).as("a Service named %s, the Redis host in application.yml", host).isNotNull();
		assertThat(map(service, "spec").get("clusterIP")).as("headless").isEqualTo("None");
		Map<String, Object> servicePort = maps(list(service, "spec", "ports")).stream()
			.filter(p -> Integer.valueOf(port).equals(p.get("port")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("Service " + host + " has no port " + port));
		Map<String, Object> statefulSet = overlay.all("StatefulSet").stream()
			.filter(s -> host.equals(map(s, "spec").get("serviceName")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no StatefulSet has serviceName " + host));
		Map<String, String> redisLabels = labels(map(statefulSet, "spec", "template", "metadata"));
		assertThat(selectsByLabels(map(service, "spec", "selector"), redisLabels)).as("the Service selects the Redis pods")
			.isTrue();
		Map<String, Object> redisContainer = maps(list(statefulSet, "spec", "template", "spec", "containers")).get(0);
		assertThat(containerPort(redisContainer, servicePort.get("targetPort"))).isEqualTo(port);
		// Redis requires the password the relay presents: the same key of the same Secret, for both
		List<Object> args = list(redisContainer, "args");
		assertThat(args).as("Redis's args").containsSubsequence("--requirepass", "$(REDIS_PASSWORD)");
		assertThat(maps(redisContainer.get("env"))).as("Redis's REDIS_PASSWORD, from the Secret")
			.anySatisfy(env -> {
				assertThat(env.get("name")).isEqualTo("REDIS_PASSWORD");
				assertThat(map(env, "valueFrom", "secretKeyRef")).containsEntry("name", name(secret))
					.containsEntry("key", "REDIS_PASSWORD");
			});
		assertThat(url).as("the relay's Redis URL").isNotNull();
		assertThat(redis.getPassword()).as("no password written in application.yml").isNull();
		assertThat(Binder.get(overlay.environment(Map.of("REDIS_PASSWORD", "from-the-secret")))
			.bindOrCreate("spring.data.redis", DataRedisProperties.class).getUrl())
			.as("the relay presents the Secret's REDIS_PASSWORD").contains(":from-the-secret@");

		assertThat(overlay.egressAllows(port, "TCP", redisLabels)).as("the relay may open connections to Redis").isTrue();
		assertThat(overlay.policiesSelecting(redisLabels)).as("a NetworkPolicy of Redis's own").isNotEmpty()
			.allSatisfy(policy -> assertThat(maps(list(policy, "spec", "ingress"))).anySatisfy(rule -> {
				assertThat(ports(rule)).anySatisfy(p -> assertThat(p.get("port")).isEqualTo(port));
				assertThat(maps(rule.get("from"))).anySatisfy(peer -> assertThat(
						selects(map(peer, "podSelector"), overlay.relayPodLabels())).isTrue());
			}));
	}

	// --- networking -----------------------------------------------------------------------------------------------

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void theServiceAndTheNetworkPoliciesLetClientsInAndTheRelayOutToDnsAndEveryUpstream(String name) {
		Overlay overlay = rendered.get(name);
		Map<String, Object> service = overlay.find("Service", "mcp-relay");
		assertThat(selectsByLabels(map(service, "spec", "selector"), overlay.relayPodLabels()))
			.as("the Service mcp-relay selects the relay's pods").isTrue();
		int relayPort = Binder.get(overlay.environment(Map.of())).bind("server.port", Integer.class).orElse(8080);
		assertThat(maps(list(service, "spec", "ports")))
			.anySatisfy(p -> assertThat(containerPort(overlay.relayContainer(), p.get("targetPort"))).isEqualTo(relayPort));

		List<Map<String, Object>> policies = overlay.policiesSelecting(overlay.relayPodLabels());
		assertThat(policies).as("a NetworkPolicy for the relay").isNotEmpty();
		assertThat(policies.stream().flatMap(p -> maps(list(p, "spec", "ingress")).stream()).flatMap(r -> ports(r).stream()))
			.as("clients may reach the relay's port").anySatisfy(p -> assertThat(p.get("port")).isIn(relayPort, "http"));
		int managementPort = Binder.get(overlay.environment(Map.of()))
			.bind("management.server.port", Integer.class)
			.orElse(relayPort);
		assertThat(policies.stream().flatMap(p -> maps(list(p, "spec", "ingress")).stream()).flatMap(r -> ports(r).stream()))
			.as("Prometheus may reach the management port")
			.anySatisfy(p -> assertThat(p.get("port")).isIn(managementPort, "management"));
		assertThat(maps(list(service, "spec", "ports")))
			.as("no Service exposes the management port, where metrics need no credential")
			.noneSatisfy(p -> assertThat(containerPort(overlay.relayContainer(), p.get("targetPort")))
				.isEqualTo(managementPort));
		assertThat(overlay.egressAllows(53, "UDP", null)).as("DNS over UDP").isTrue();
		assertThat(overlay.egressAllows(53, "TCP", null)).as("DNS over TCP").isTrue();
		for (URI upstream : upstreams(overlay.relayProperties())) {
			int port = upstream.getPort() != -1 ? upstream.getPort() : "https".equals(upstream.getScheme()) ? 443 : 80;
			assertThat(overlay.egressAllows(port, "TCP", null))
				.as("egress to %s://%s:%s (open its port in a NetworkPolicy of the relay)", upstream.getScheme(),
						upstream.getHost(), port)
				.isTrue();
		}
	}

	// --- secrets --------------------------------------------------------------------------------------------------

	@ParameterizedTest
	@ValueSource(strings = { "single", "replicas" })
	void noSecretIsWrittenInTheManifestsAndEveryOneComesFromTheSecretTheReadmeMakes(String name) {
		Overlay overlay = rendered.get(name);
		assertThat(overlay.all("Secret")).as("no Secret with values in the manifests").isEmpty();
		String secretName = name(secret);
		for (Map<String, Object> workload : overlay.workloads()) {
			for (Map<String, Object> container : maps(list(workload, "spec", "template", "spec", "containers"))) {
				for (Map<String, Object> env : maps(container.get("env"))) {
					assertThat(env.get("value") == null || !looksSecret((String) env.get("name")))
						.as("%s is given literally in %s", env.get("name"), name(workload)).isTrue();
				}
			}
		}
		assertThat(maps(overlay.relayContainer().get("envFrom")))
			.as("the relay's environment comes from the Secret %s", secretName)
			.anySatisfy(from -> assertThat(map(from, "secretRef")).containsEntry("name", secretName));

		Map<String, Object> config = flatten(loadYaml(overlay.applicationYml()));
		config.forEach((key, value) -> {
			String last = key.substring(key.lastIndexOf('.') + 1);
			boolean credential = SECRET_KEYS.contains(last) || key.matches(".*\\.headers\\[\\d+]\\.value");
			String text = String.valueOf(value);
			if (credential) {
				assertThat(PLACEHOLDER.matcher(text).replaceAll("").strip())
					.as("%s in application.yml may only name an environment variable", key)
					.matches("(?i)(bearer|basic)?");
			}
			assertThat(text).as("%s holds no credential in a URL", key).doesNotContainPattern("://[^/@\\s$]+:[^/@\\s$]+@");
		});
		Set<String> required = new LinkedHashSet<>();
		Matcher placeholder = PLACEHOLDER.matcher(overlay.applicationYml());
		while (placeholder.find()) {
			if (placeholder.group(2) == null) {
				required.add(placeholder.group(1));
			}
		}
		assertThat(map(secret, "data").keySet()).as("the Secret the README makes has every variable application.yml needs")
			.containsAll(required);
	}

	// --- the README -----------------------------------------------------------------------------------------------

	@Test
	void everyCommandInTheReadmeIsOneThisTestRuns() {
		Matcher block = Pattern.compile("```(?:bash|sh|shell)\\n(.*?)```", Pattern.DOTALL).matcher(readme);
		Pattern apply = Pattern.compile("kubectl apply -k deploy/kubernetes/overlays/([a-z-]+)");
		Pattern validate = Pattern
			.compile("kubectl kustomize deploy/kubernetes/overlays/([a-z-]+) \\| node interop/validate-kubernetes\\.mjs");
		int commands = 0;
		while (block.find()) {
			if (block.group(1).contains("kubectl create secret generic")) {
				continue; // run by secretFromReadme()
			}
			for (String line : block.group(1).replace("\\\n", " ").split("\n")) {
				String command = line.replaceAll("\\s+#.*$", "").strip();
				if (command.isEmpty() || command.startsWith("#")) {
					continue;
				}
				commands++;
				Matcher overlay = apply.matcher(command);
				Matcher check = validate.matcher(command);
				if (overlay.matches()) {
					assertThat(OVERLAYS).as(command).contains(overlay.group(1));
				}
				else if (check.matches()) {
					assertThat(OVERLAYS).as(command).contains(check.group(1));
				}
				else {
					fail("The README's command '" + command + "' is neither kubectl apply -k of an overlay this test "
							+ "renders nor one it runs");
				}
			}
		}
		assertThat(commands).isPositive();
	}

	// --- what the tests share -------------------------------------------------------------------------------------

	/** The repository's root: the first directory up from the working directory that holds deploy/kubernetes. */
	private static Path repositoryRoot() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isDirectory(dir.resolve("deploy/kubernetes"))) {
				return dir;
			}
		}
		throw new AssertionError("No directory above " + Path.of("").toAbsolutePath() + " holds deploy/kubernetes");
	}

	private static Path overlayDirectory(String name) {
		return root.resolve("deploy/kubernetes/overlays").resolve(name);
	}

	/**
	 * Runs the README's block that makes the Secret, in bash with the operator's variables, its kubectl printing the
	 * Secret instead of creating it ({@code --dry-run=client -o yaml}, no cluster needed).
	 */
	private static Map<String, Object> secretFromReadme() throws IOException, InterruptedException {
		Matcher block = Pattern.compile("```bash\\n((?:(?!```).)*kubectl create secret generic(?:(?!```).)*)```",
				Pattern.DOTALL).matcher(readme);
		assertThat(block.find()).as("the README has a bash block with kubectl create secret generic").isTrue();
		Renderer kubectl = renderers.stream().filter(Renderer::isKubectl).findFirst()
			.orElseThrow(() -> new AssertionError("The README's Secret command needs kubectl; install it (Debian/Ubuntu: "
					+ "apt-get install kubernetes-client)"));
		Path out = Files.createTempFile(Path.of("target").toAbsolutePath(), "secret-", ".yaml");
		String script = "set -euo pipefail\n"
				+ "kubectl() { \"$KUBECTL\" \"$@\" --dry-run=client -o yaml > \"$SECRET_OUT\"; }\n" + block.group(1);
		ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).directory(root.toFile());
		builder.environment().clear();
		builder.environment().putAll(OPERATOR_SHELL);
		builder.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
		builder.environment().put("HOME", out.getParent().toString());
		builder.environment().put("KUBECTL", kubectl.command().get(0));
		builder.environment().put("SECRET_OUT", out.toString());
		Result result = Result.of(builder, Duration.ofSeconds(60));
		assertThat(result.exitCode()).as("the README's Secret command:\n%s\n%s", block.group(1), result.stderr())
			.isZero();
		Map<String, Object> made = loadYaml(Files.readString(out));
		assertThat(made).containsEntry("kind", "Secret");
		return made;
	}

	/** The Secret's values, as the container's environment has them. */
	private static Map<String, String> secretValues() {
		Map<String, String> values = new TreeMap<>();
		map(secret, "data").forEach((key, value) -> values.put(key,
				new String(Base64.getDecoder().decode(String.valueOf(value)), StandardCharsets.UTF_8)));
		return values;
	}

	private static RelayProperties relayProperties(StandardEnvironment environment) {
		return Binder.get(environment).bindOrCreate("mcp-relay", RelayProperties.class);
	}

	private static ConfigurableApplicationContext start(Map<String, String> env, Path config, String... more) {
		SpringApplication application = new SpringApplication(McpRelayApplication.class, OwnEventLoops.class);
		application.setEnvironment(new ContainerEnvironment(env));
		String[] args = Stream.concat(Stream.of("--spring.config.additional-location=file:" + config + File.separator,
				"--server.port=0", "--server.address=127.0.0.1", "--spring.reactor.netty.shutdown-quiet-period=0s"),
				Stream.of(more)).toArray(String[]::new);
		return application.run(args);
	}

	/** The status of a GET, asked again while it is 503 (a probe group not up yet, e.g. Redis still connecting). */
	private static int statusWithin(HttpClient http, URI uri, Duration wait) throws Exception {
		long deadline = System.nanoTime() + wait.toNanos();
		int status;
		do {
			status = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
					HttpResponse.BodyHandlers.discarding()).statusCode();
			if (status != 503) {
				return status;
			}
			Thread.sleep(200);
		}
		while (System.nanoTime() < deadline);
		return status;
	}

	private static List<URI> upstreams(RelayProperties properties) {
		List<URI> urls = new ArrayList<>();
		for (ServerProperties server : properties.servers().values()) {
			urls.add(URI.create(server.url()));
			if (server.oauth2() != null) {
				Stream.of(server.oauth2().tokenUri(), server.oauth2().issuerUri())
					.filter(u -> u != null)
					.forEach(u -> urls.add(URI.create(u)));
			}
		}
		Stream.of(properties.security().jwt().issuerUri(), properties.security().jwt().jwkSetUri())
			.filter(u -> u != null)
			.forEach(u -> urls.add(URI.create(u)));
		return urls;
	}

	private static boolean looksSecret(String name) {
		return name.matches("(?i).*(token|key|secret|password|credential|sha256).*");
	}

	/** A container's port by number or by name. */
	private static Integer containerPort(Map<String, Object> container, Object port) {
		if (port instanceof Integer number) {
			return maps(container.get("ports")).stream().anyMatch(p -> number.equals(p.get("containerPort"))) ? number
					: null;
		}
		return maps(container.get("ports")).stream()
			.filter(p -> port.equals(p.get("name")))
			.map(p -> (Integer) p.get("containerPort"))
			.findFirst()
			.orElse(null);
	}

	private static Map<String, Object> volume(Map<String, Object> pod, String name) {
		return maps(pod.get("volumes")).stream().filter(v -> name.equals(v.get("name"))).findFirst()
			.orElseThrow(() -> new AssertionError("no volume " + name));
	}

	private static Map<String, Object> mountedVolume(Map<String, Object> pod, Map<String, Object> container, String path) {
		return maps(container.get("volumeMounts")).stream()
			.filter(m -> path.equals(m.get("mountPath")))
			.map(m -> volume(pod, (String) m.get("name")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("nothing is mounted at " + path));
	}

	/** A container's security setting, or the pod's when the container has none. */
	private static Object effective(Map<String, Object> pod, Map<String, Object> container, String key) {
		Map<String, Object> own = map(container, "securityContext");
		if (own != null && own.get(key) != null) {
			return own.get(key);
		}
		Map<String, Object> podLevel = map(pod, "securityContext");
		return podLevel == null ? null : podLevel.get(key);
	}

	private static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
		if (selector == null) {
			return false;
		}
		assertThat(selector.get("matchExpressions")).as("selectors use matchLabels").isNull();
		Map<String, Object> match = map(selector, "matchLabels");
		return match == null || labels.entrySet().containsAll(
				match.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> String.valueOf(e.getValue())))
					.entrySet());
	}

	/** A Service's selector: labels every selected pod has. */
	private static boolean selectsByLabels(Map<String, Object> selector, Map<String, String> labels) {
		return selector != null && !selector.isEmpty() && selects(Map.of("matchLabels", selector), labels);
	}

	private static Map<String, String> labels(Map<String, Object> metadata) {
		Map<String, String> labels = new TreeMap<>();
		Map<String, Object> raw = map(metadata, "labels");
		if (raw != null) {
			raw.forEach((k, v) -> labels.put(k, String.valueOf(v)));
		}
		return labels;
	}

	private static List<Map<String, Object>> ports(Map<String, Object> rule) {
		return maps(rule.get("ports"));
	}

	private static String name(Map<String, Object> object) {
		return (String) map(object, "metadata").get("name");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> map(Object node, String... path) {
		Object at = node;
		for (String key : path) {
			if (!(at instanceof Map<?, ?> m)) {
				return null;
			}
			at = m.get(key);
		}
		return at instanceof Map<?, ?> ? (Map<String, Object>) at : null;
	}

	@SuppressWarnings("unchecked")
	private static List<Object> list(Object node, String... path) {
		Object at = node;
		for (String key : path) {
			if (!(at instanceof Map<?, ?> m)) {
				return List.of();
			}
			at = m.get(key);
		}
		return at instanceof List<?> ? (List<Object>) at : List.of();
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> maps(Object list) {
		if (!(list instanceof List<?> items)) {
			return List.of();
		}
		return items.stream().filter(Map.class::isInstance).map(item -> (Map<String, Object>) item).toList();
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> loadYaml(String text) {
		Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
		return loaded instanceof Map<?, ?> ? (Map<String, Object>) loaded : Map.of();
	}

	/** A YAML tree as Spring Boot's property names ({@code a.b[0].c}) with their values. */
	private static Map<String, Object> flatten(Map<String, Object> tree) {
		Map<String, Object> flat = new TreeMap<>();
		flatten("", tree, flat);
		return flat;
	}

	private static void flatten(String prefix, Object node, Map<String, Object> flat) {
		if (node instanceof Map<?, ?> m) {
			m.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, flat));
		}
		else if (node instanceof List<?> l) {
			for (int i = 0; i < l.size(); i++) {
				flatten(prefix + "[" + i + "]", l.get(i), flat);
			}
		}
		else {
			flat.put(prefix, node);
		}
	}

	/** The objects of a rendering by kind and name, with what renderers may differ in evened out. */
	private static Map<String, Object> comparable(List<Map<String, Object>> objects) {
		Map<String, Object> byName = new TreeMap<>();
		for (Map<String, Object> object : objects) {
			Map<String, Object> copy = loadYaml(CONFIG_HASH.matcher(new Yaml().dump(object)).replaceAll("$1-<hash>"));
			Map<String, Object> metadata = map(copy, "metadata");
			metadata.values().removeIf(v -> v instanceof Map<?, ?> m && m.isEmpty());
			byName.put(copy.get("kind") + "/" + name(copy), copy);
		}
		return byName;
	}

	/** One overlay as a renderer gave it. */
	private record Overlay(String name, String yaml, List<Map<String, Object>> objects) {

		Overlay(String name, String yaml) {
			this(name, yaml, parse(yaml));
		}

		@SuppressWarnings("unchecked")
		private static List<Map<String, Object>> parse(String yaml) {
			List<Map<String, Object>> objects = new ArrayList<>();
			for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
				if (document instanceof Map<?, ?> object) {
					objects.add((Map<String, Object>) object);
				}
			}
			return objects;
		}

		List<Map<String, Object>> all(String kind) {
			return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
		}

		Map<String, Object> find(String kind, String name) {
			return all(kind).stream().filter(o -> name.equals(KubernetesManifestsTest.name(o))).findFirst().orElse(null);
		}

		List<Map<String, Object>> workloads() {
			return objects.stream().filter(o -> List.of("Deployment", "StatefulSet").contains(o.get("kind"))).toList();
		}

		Map<String, Object> relayPod() {
			Map<String, Object> deployment = find("Deployment", "mcp-relay");
			assertThat(deployment).as("the Deployment mcp-relay in overlays/%s", name).isNotNull();
			return map(deployment, "spec", "template", "spec");
		}

		Map<String, String> relayPodLabels() {
			return labels(map(find("Deployment", "mcp-relay"), "spec", "template", "metadata"));
		}

		Map<String, Object> relayContainer() {
			return maps(relayPod().get("containers")).stream()
				.filter(c -> "relay".equals(c.get("name")))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no container relay in the Deployment mcp-relay"));
		}

		/** What the relay's container has mounted at /app/config (or at /app/config/application.yml). */
		Map<String, Object> configMount() {
			return maps(relayContainer().get("volumeMounts")).stream()
				.filter(m -> "/app/config/application.yml".equals(m.get("mountPath"))
						|| "/app/config".equals(m.get("mountPath")))
				.findFirst()
				.orElseThrow(() -> new AssertionError("nothing is mounted at /app/config in overlays/" + name));
		}

		String configMapName() {
			Map<String, Object> configMap = map(volume(relayPod(), (String) configMount().get("name")), "configMap");
			assertThat(configMap).as("the volume at /app/config is a ConfigMap").isNotNull();
			return (String) configMap.get("name");
		}

		/** application.yml as the relay reads it: from the ConfigMap mounted at /app/config. */
		String applicationYml() {
			Object subPath = configMount().get("subPath");
			Object text = map(find("ConfigMap", configMapName()), "data").get(subPath != null ? subPath : "application.yml");
			assertThat(text).as("application.yml in the ConfigMap of overlays/%s", name).isInstanceOf(String.class);
			return (String) text;
		}

		/** The container's environment: the Deployment's literal values and the Secret's, plus {@code extra}. */
		Map<String, String> containerEnvironment(Map<String, String> extra) {
			Map<String, String> env = new TreeMap<>(secretValues());
			for (Map<String, Object> var : maps(relayContainer().get("env"))) {
				if (var.get("value") != null) {
					env.put((String) var.get("name"), String.valueOf(var.get("value")));
				}
			}
			env.putAll(extra);
			return env;
		}

		/**
		 * The environment the relay resolves its configuration in: the container's variables, application.yml from the
		 * ConfigMap over the defaults in the jar (the main {@code application.yml} on the class path).
		 */
		StandardEnvironment environment(Map<String, String> extra) {
			try {
				StandardEnvironment environment = new ContainerEnvironment(containerEnvironment(extra));
				MutablePropertySources sources = environment.getPropertySources();
				YamlPropertySourceLoader loader = new YamlPropertySourceLoader();
				for (PropertySource<?> source : loader.load("file [/app/config/application.yml]",
						new ByteArrayResource(applicationYml().getBytes(StandardCharsets.UTF_8)))) {
					sources.addLast(source);
				}
				for (PropertySource<?> source : loader.load("class path resource [application.yml]",
						new ClassPathResource("application.yml"))) {
					sources.addLast(source);
				}
				return environment;
			}
			catch (IOException ex) {
				throw new AssertionError(ex);
			}
		}

		RelayProperties relayProperties() {
			return KubernetesManifestsTest.relayProperties(environment(Map.of()));
		}

		List<Map<String, Object>> policiesSelecting(Map<String, String> podLabels) {
			return all("NetworkPolicy").stream().filter(p -> selects(map(p, "spec", "podSelector"), podLabels)).toList();
		}

		/**
		 * Whether a NetworkPolicy of the relay's pods lets them open {@code protocol} connections to {@code port}, to
		 * pods with {@code peerLabels} when given (a rule with no {@code to} reaches everything; one that names only
		 * addresses reaches no pod this overlay makes).
		 */
		boolean egressAllows(int port, String protocol, Map<String, String> peerLabels) {
			for (Map<String, Object> policy : policiesSelecting(relayPodLabels())) {
				for (Map<String, Object> rule : maps(list(policy, "spec", "egress"))) {
					boolean portOpen = ports(rule).isEmpty() || ports(rule).stream().anyMatch(p -> {
						String ruleProtocol = p.get("protocol") == null ? "TCP" : (String) p.get("protocol");
						Object from = p.get("port");
						Object to = p.get("endPort") != null ? p.get("endPort") : from;
						return ruleProtocol.equals(protocol) && (from == null || (from instanceof Integer low
								&& to instanceof Integer high && low <= port && port <= high));
					});
					boolean peerReached = peerLabels == null || maps(rule.get("to")).isEmpty()
							|| maps(rule.get("to")).stream().anyMatch(peer -> peer.get("ipBlock") == null
									&& peer.get("namespaceSelector") == null
									&& selects(map(peer, "podSelector"), peerLabels));
					if (portOpen && peerReached) {
						return true;
					}
				}
			}
			return false;
		}

	}

	/** A Spring environment with no system properties and, as its system environment, the container's variables. */
	private static final class ContainerEnvironment extends StandardEnvironment {

		private ContainerEnvironment(Map<String, String> env) {
			getPropertySources().remove(SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
			getPropertySources().replace(SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					new SystemEnvironmentPropertySource(SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.copyOf(env)));
		}

	}

	/**
	 * A kustomize: Debian's kubectl (package kubernetes-client, kubectl 1.20 with kustomize 2.0.3, the oldest syntax,
	 * fetched into target/ with apt-get download when missing, so that it never clashes with another kubectl), then any
	 * other kubectl and kustomize on the PATH.
	 */
	private record Renderer(String description, List<String> command) {

		private static final Path DEBIAN = Path.of("target", "kubernetes-client").toAbsolutePath();

		static List<Renderer> available() throws IOException, InterruptedException {
			List<Renderer> all = new ArrayList<>();
			Path debian = debianKubectl();
			if (debian != null) {
				all.add(new Renderer("Debian's kubernetes-client kubectl", List.of(debian.toString(), "kustomize")));
			}
			Path kubectl = onPath("kubectl");
			if (kubectl != null && (debian == null || !Files.isSameFile(kubectl, debian))) {
				all.add(new Renderer("kubectl on the PATH (" + kubectl + ")", List.of(kubectl.toString(), "kustomize")));
			}
			Path kustomize = onPath("kustomize");
			if (kustomize != null) {
				all.add(new Renderer("kustomize on the PATH (" + kustomize + ")", List.of(kustomize.toString(), "build")));
			}
			if (all.isEmpty()) {
				throw new AssertionError("Rendering deploy/kubernetes needs kubectl 1.14 or newer (kubectl kustomize) or "
						+ "kustomize, and neither was found, nor could Debian's package kubernetes-client be fetched "
						+ "(apt-get download kubernetes-client; on a fresh machine run apt-get update as root first; see "
						+ "target/kubernetes-client-install.log). Install kubectl (Debian/Ubuntu: apt-get install "
						+ "kubernetes-client) and run the tests again.");
			}
			return all;
		}

		boolean isKubectl() {
			return command.get(1).equals("kustomize");
		}

		String render(Path overlay) throws IOException {
			List<String> args = new ArrayList<>(command);
			args.add(overlay.toString());
			Result result = Result.of(new ProcessBuilder(args).directory(root.toFile()), Duration.ofSeconds(120));
			if (result.exitCode() != 0) {
				throw new AssertionError(this + " could not render " + root.relativize(overlay) + " (exit "
						+ result.exitCode() + "):\n" + result.stderr());
			}
			return result.stdout();
		}

		@Override
		public String toString() {
			return description;
		}

		private static synchronized Path debianKubectl() throws IOException, InterruptedException {
			Path kubectl = DEBIAN.resolve("usr/bin/kubectl");
			if (Files.isExecutable(kubectl)) {
				return kubectl;
			}
			if (!Files.isExecutable(Path.of("/usr/bin/apt-get")) || !Files.isExecutable(Path.of("/usr/bin/dpkg-deb"))) {
				return null;
			}
			Path download = Files.createDirectories(Path.of("target", "kubernetes-client-deb").toAbsolutePath());
			if (install(download, "apt-get", "download", "kubernetes-client") != 0) {
				// A fresh machine may have no package lists yet (updating them needs root).
				install(download, "apt-get", "update", "-q");
				if (install(download, "apt-get", "download", "kubernetes-client") != 0) {
					return null;
				}
			}
			Path deb;
			try (Stream<Path> files = Files.list(download)) {
				deb = files.filter(f -> f.getFileName().toString().matches("kubernetes-client_.*\\.deb"))
					.max(Comparator.comparing(f -> f.toFile().lastModified()))
					.orElse(null);
			}
			if (deb == null || install(download, "dpkg-deb", "-x", deb.toString(), DEBIAN.toString()) != 0) {
				return null;
			}
			return Files.isExecutable(kubectl) ? kubectl : null;
		}

		private static int install(Path directory, String... command) throws IOException, InterruptedException {
			return DebianTool.run(directory, Path.of("target", "kubernetes-client-install.log"), command);
		}

		private static Path onPath(String name) {
			String path = System.getenv("PATH");
			if (path == null) {
				return null;
			}
			for (String dir : path.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, name);
				if (!dir.isEmpty() && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
			return null;
		}

	}

	/**
	 * {@code interop/validate-kubernetes.mjs} on Node, with the packages pinned in {@code interop/package-lock.json}
	 * (installed with {@code npm ci} when missing or older than the lockfile, as the interop suite does).
	 */
	private static final class SchemaValidator {

		private static boolean ready;

		static synchronized String validate(String yaml) throws IOException {
			Path interop = root.resolve("interop");
			if (!ready) {
				requireNode(interop);
				dev.mcprelay.interop.NodePeers.installFromLockfile();
				ready = true;
			}
			Path input = Files.createTempFile(Path.of("target").toAbsolutePath(), "manifests-", ".yaml");
			Files.writeString(input, yaml);
			Result result = Result.of(new ProcessBuilder("node", "validate-kubernetes.mjs", input.toString())
				.directory(interop.toFile()), Duration.ofSeconds(60));
			assertThat(result.exitCode())
				.as("node interop/validate-kubernetes.mjs (the Kubernetes API schema):\n%s%s", result.stdout(),
						result.stderr())
				.isZero();
			return result.stdout();
		}

		private static void requireNode(Path interop) throws IOException {
			Result version;
			try {
				version = Result.of(new ProcessBuilder("node", "--version").directory(interop.toFile()),
						Duration.ofSeconds(30));
			}
			catch (IOException ex) {
				throw new AssertionError("Validating deploy/kubernetes needs Node.js 18 or newer on the PATH, and 'node' "
						+ "was not found. Install Node.js (https://nodejs.org, or your system's nodejs package) and run "
						+ "the tests again.", ex);
			}
			String text = version.stdout().strip();
			int major = text.startsWith("v") ? Integer.parseInt(text.substring(1, text.indexOf('.'))) : 0;
			if (version.exitCode() != 0 || major < 18) {
				throw new AssertionError("Validating deploy/kubernetes needs Node.js 18 or newer; 'node --version' says '"
						+ text + "'. Install a newer Node.js and run the tests again.");
			}
		}

	}

	private record Result(int exitCode, String stdout, String stderr) {

		static Result of(ProcessBuilder builder, Duration timeout) throws IOException {
			Process process = builder.start();
			process.getOutputStream().close();
			CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
			CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
			try {
				if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
					process.descendants().forEach(ProcessHandle::destroyForcibly);
					process.destroyForcibly();
					throw new AssertionError(String.join(" ", builder.command()) + " did not finish within " + timeout);
				}
				return new Result(process.exitValue(), stdout.join(), stderr.join());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
				throw new IOException("interrupted", ex);
			}
		}

		private static String read(java.io.InputStream in) {
			try (in) {
				return new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				return "";
			}
		}

	}

}
