package dev.mcprelay.live;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.stereotype.Component;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.SecurityProperties;
import dev.mcprelay.config.SessionStoreKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;

/**
 * Reads the configuration again from the sources the relay started with and applies it whole or refuses it whole
 * (DESIGN section 13). Called by the file watcher ({@link ConfigurationFileWatcher}) and the actuator endpoint
 * ({@link ReloadEndpoint}), never on an event loop (reading files and compiling parts block); one reload at a time.
 *
 * <p>The steps: a fresh environment ({@link FreshEnvironment}: placeholders resolve as at start-up); Spring Boot's
 * {@link Binder} binds {@code mcp-relay} from it, with what cannot change live (the security mode, the session store
 * kind) held at the running values; the start-up validation ({@link LiveConfiguration#problems}); then, when the bound
 * values differ from the running ones (their checksum), {@link LiveConfiguration#apply}. A reload with any problem is
 * refused: each problem logged by property path, nothing applied. A value that needs a restart (the server and
 * management ports and address, the security mode, the session store kind) that differs from the running one is
 * reported and left as it runs. Each outcome is counted ({@code mcp_relay_config_reloads_total{outcome}}) and the
 * running configuration's checksum is the one {@code mcp_relay_config_info{checksum}} series. The log names what
 * changed by id, never a value, and how long the reload took, from reading the files to the new snapshot current
 * (wall-clock time, and the CPU time of the thread that applied it: what it costs whatever else the machine runs).
 */
@Component
public class ConfigurationReloader {

	private static final Logger log = LoggerFactory.getLogger(ConfigurationReloader.class);

	static final String RELOADS = "mcp.relay.config.reloads";

	static final String INFO = "mcp.relay.config.info";

	/** Properties outside {@code mcp-relay} that only a restart changes. */
	private static final List<String> RESTART_ONLY = List.of("server.port", "server.address", "management.server.port",
			"management.server.address");

	private static final String MODE = "mcp-relay.security.mode";

	/** Measures the CPU time a reload takes on its thread, for its log line (-1 where the JVM cannot). */
	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private static final String STORE = "mcp-relay.sessions.store";

	private final LiveConfiguration live;

	private final ConfigurableEnvironment environment;

	private final Map<String, Counter> reloads = new java.util.HashMap<>();

	private final MultiGauge info;

	public ConfigurationReloader(LiveConfiguration live, ConfigurableEnvironment environment, MeterRegistry registry) {
		this.live = live;
		this.environment = environment;
		for (String outcome : ReloadOutcome.ALL) {
			reloads.put(outcome, Counter.builder(RELOADS)
				.description("Configuration reloads, by outcome: applied, refused, unchanged, restart_required")
				.tag("outcome", outcome)
				.register(registry));
		}
		this.info = MultiGauge.builder(INFO)
			.description("The running configuration, by the checksum of its bound values (always 1)")
			.register(registry);
		showChecksum(live.current().checksum());
	}

	/**
	 * Reloads now.
	 *
	 * @param trigger what asked for it, for the log ({@code a file changed}, {@code the actuator})
	 */
	public synchronized ReloadOutcome reload(String trigger) {
		// the files are read with the relay's class loader, whichever thread asks (a pooled thread's context class
		// loader may be another application's, even one already stopped)
		Thread thread = Thread.currentThread();
		ClassLoader context = thread.getContextClassLoader();
		thread.setContextClassLoader(ConfigurationReloader.class.getClassLoader());
		try {
			return reloadNow(trigger);
		}
		finally {
			thread.setContextClassLoader(context);
		}
	}

	private ReloadOutcome reloadNow(String trigger) {
		long start = System.nanoTime();
		long cpuStart = THREADS.getCurrentThreadCpuTime();
		ConfigurationSnapshot running = live.current();
		ConfigurableEnvironment fresh;
		RelayProperties properties;
		List<String> restartRequired = List.of();
		try {
			fresh = FreshEnvironment.of(environment);
			restartRequired = restartRequired(fresh, running.properties());
			fresh.getPropertySources().addFirst(new MapPropertySource("mcp-relay running values", Map.of(MODE,
					String.valueOf(running.properties().security().mode()), STORE,
					running.properties().sessions().store().name())));
			properties = Binder.get(fresh).bindOrCreate("mcp-relay", Bindable.of(RelayProperties.class));
			if (restartRequired.contains(MODE)) {
				// the keys and the JWT settings belong to the mode: they run on with it until the restart, whatever
				// the file says of them now (written for the new mode, they may not fit the running one); the rest
				// applies
				properties = withSecurity(properties, running.properties().security());
			}
		}
		catch (RuntimeException ex) {
			return refused(trigger, running, List.of(unreadable(ex)), restartRequired);
		}
		List<ConfigurationProblem> problems = new ArrayList<>(live.problems(properties, fresh));
		if (problems.isEmpty()) {
			problems.addAll(LiveScope.problems(running.properties(), properties));
		}
		if (!problems.isEmpty()) {
			return refused(trigger, running, problems, restartRequired);
		}
		String checksum = ConfigurationChecksum.of(properties);
		if (checksum.equals(running.checksum())) {
			if (restartRequired.isEmpty()) {
				log.info("Configuration reload ({}): unchanged ({})", trigger, checksum);
			}
			return count(restartRequired.isEmpty()
					? new ReloadOutcome(ReloadOutcome.UNCHANGED, checksum, List.of(), List.of(), List.of())
					: restartOnly(trigger, running, List.of(), restartRequired));
		}
		List<String> changed = ConfigurationChanges.between(running.properties(), properties);
		ConfigurationSnapshot applied;
		try {
			applied = live.apply(properties);
		}
		catch (RuntimeException ex) {
			log.error("Configuration reload ({}) refused: compiling it failed; the running configuration {} stays",
					trigger, running.checksum(), ex);
			return count(new ReloadOutcome(ReloadOutcome.REFUSED, running.checksum(), List.of(), restartRequired,
					List.of(unreadable(ex))));
		}
		showChecksum(applied.checksum());
		log.info("Configuration reload ({}) applied in {} ms ({} ms of CPU): {} -> {}; changed: {}", trigger,
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
				TimeUnit.NANOSECONDS.toMillis(THREADS.getCurrentThreadCpuTime() - cpuStart), running.checksum(),
				applied.checksum(), String.join(", ", changed));
		return count(restartRequired.isEmpty()
				? new ReloadOutcome(ReloadOutcome.APPLIED, applied.checksum(), changed, List.of(), List.of())
				: restartOnly(trigger, applied, changed, restartRequired));
	}

	private ReloadOutcome restartOnly(String trigger, ConfigurationSnapshot running, List<String> changed,
			List<String> restartRequired) {
		log.warn("Configuration reload ({}): {} changed but need(s) a restart; the running value(s) stay until then",
				trigger, String.join(", ", restartRequired));
		return new ReloadOutcome(ReloadOutcome.RESTART_REQUIRED, running.checksum(), changed, restartRequired,
				List.of());
	}

	private ReloadOutcome refused(String trigger, ConfigurationSnapshot running, List<ConfigurationProblem> problems,
			List<String> restartRequired) {
		log.warn("Configuration reload ({}) refused; the running configuration {} stays. Problems:{}", trigger,
				running.checksum(), problems.stream().map(problem -> "\n  - " + problem).reduce("", String::concat));
		return count(new ReloadOutcome(ReloadOutcome.REFUSED, running.checksum(), List.of(), restartRequired,
				problems));
	}

	/** {@code properties} with the security section {@code security} (mode, API keys, JWT settings) instead of its own. */
	private static RelayProperties withSecurity(RelayProperties properties, SecurityProperties security) {
		return new RelayProperties(properties.servers(), properties.defaultServer(), properties.allowedOrigins(),
				properties.connectionPool(), properties.accessLog(), properties.shutdown(),
				properties.clientConnections(), security, properties.rateLimits(), properties.sessions(),
				properties.virtualServers(), properties.tracing(), properties.maxBufferedBodies(),
				properties.maxBufferedBodiesPerCaller(), properties.policies());
	}

	private ReloadOutcome count(ReloadOutcome outcome) {
		reloads.get(outcome.outcome()).increment();
		return outcome;
	}

	/** What differs, among what only a restart changes, between {@code fresh} and what runs. */
	private List<String> restartRequired(ConfigurableEnvironment fresh, RelayProperties running) {
		List<String> restart = new ArrayList<>();
		for (String key : RESTART_ONLY) {
			if (!Objects.equals(environment.getProperty(key), fresh.getProperty(key))) {
				restart.add(key);
			}
		}
		Binder binder = Binder.get(fresh);
		SecurityMode mode = binder.bind(MODE, SecurityMode.class).orElse(null);
		if (mode != running.security().mode()) {
			restart.add(MODE);
		}
		if (binder.bind(STORE, SessionStoreKind.class).orElse(SessionStoreKind.MEMORY) != running.sessions().store()) {
			restart.add(STORE);
		}
		return restart;
	}

	private void showChecksum(String checksum) {
		info.register(List.of(MultiGauge.Row.of(Tags.of("checksum", checksum), 1)), true);
	}

	/**
	 * The problem of a configuration that could not be read or bound, named by property path and never with its
	 * value: a binding failure's message quotes the value it could not convert ({@code for value [...]}), and a YAML
	 * error's quotes the lines around it, either of which may be a secret. What is said is the property, the type
	 * it should have been, the kind of failure, and for a file that does not parse, the kind of YAML error and where
	 * (file, line and column), never the parser's own description of the problem, which quotes the file.
	 */
	private static ConfigurationProblem unreadable(RuntimeException ex) {
		String property = "mcp-relay";
		String what = "cannot be read: " + ex.getClass().getSimpleName();
		if (ex instanceof BindException bind) {
			property = bind.getProperty() != null ? bind.getProperty().getName().toString() : bind.getName().toString();
			Throwable cause = bind.getCause() != null ? bind.getCause() : bind;
			what = "cannot be bound to " + bind.getTarget().getType() + " (" + cause.getClass().getSimpleName() + ")";
		}
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
				// the kind of error and where, never the problem's own words: they may quote the file (an alias, a key)
				what += ": " + yamlErrorKind(yaml) + " at line " + (yaml.getProblemMark().getLine() + 1) + ", column "
						+ (yaml.getProblemMark().getColumn() + 1) + " of " + yaml.getProblemMark().getName();
				break;
			}
		}
		return new ConfigurationProblem(property, what, "Correct the configuration file");
	}

	/** The kind of a YAML error in the relay's words, which quote nothing of the file. */
	private static String yamlErrorKind(MarkedYAMLException yaml) {
		String type = yaml.getClass().getSimpleName();
		return switch (type) {
			case "ScannerException" -> "malformed YAML (a token cannot be read)";
			case "ParserException" -> "malformed YAML (the document's structure is broken)";
			case "DuplicateKeyException" -> "malformed YAML (a key appears twice in one mapping)";
			case "ComposerException" -> "malformed YAML (an anchor or alias is wrong)";
			case "ConstructorException" -> "malformed YAML (a value cannot be constructed)";
			default -> "malformed YAML (" + type + ")";
		};
	}

}
