package dev.mcprelay.live;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.InvalidRelayConfigurationException;
import dev.mcprelay.config.RelayConfigurationCheck;
import dev.mcprelay.config.RelayProperties;

/**
 * The holder of the relay's current {@link ConfigurationSnapshot}, which it swaps atomically (DESIGN section 13).
 *
 * <p>At start-up it validates the bound properties (the start-up check, {@link RelayConfigurationCheck}, and every
 * part's own {@link SnapshotPart#problems}) and stops the application with every problem found, or compiles the first
 * snapshot. At each reload ({@code ConfigurationReloader}) the same validation runs on the newly bound properties
 * ({@link #problems}); only a configuration without problems is {@linkplain #apply applied}: every part compiled for
 * it, then the new snapshot made current in one write, then each part told what it replaced
 * ({@link SnapshotPart#replaced}), so that what a removed server or a revoked key governed ends: each part after the
 * parts it read while compiling (the servers before the legacy SSE bridges, which end their sessions once the servers'
 * streams were told). A part that fails to compile leaves the current snapshot as it was.
 *
 * <p>Reading the current snapshot ({@link #current}) is one volatile read; applying is serialized. No component keeps
 * a copy of the properties or of a part: a request reads them from the snapshot it took.
 */
@Component
public class LiveConfiguration {

	private static final Logger log = LoggerFactory.getLogger(LiveConfiguration.class);

	private final List<SnapshotPart<?>> parts;

	/** The parts in the order they compiled: each after those it reads, so told what it replaced after them. */
	private volatile List<SnapshotPart<?>> inDependencyOrder;

	private volatile ConfigurationSnapshot current;

	public LiveConfiguration(RelayProperties properties, Environment environment, List<SnapshotPart<?>> parts) {
		this.parts = List.copyOf(parts);
		List<ConfigurationProblem> problems = problems(properties, environment);
		if (!problems.isEmpty()) {
			throw new InvalidRelayConfigurationException(problems);
		}
		this.current = build(properties, null, 1);
	}

	/** The snapshot a request starting now runs on. */
	public ConfigurationSnapshot current() {
		return current;
	}

	/**
	 * Every problem of {@code properties}, bound from {@code environment}: the start-up check's and each part's; none
	 * when they may be applied.
	 */
	public List<ConfigurationProblem> problems(RelayProperties properties, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>(RelayConfigurationCheck.problems(properties, environment));
		for (SnapshotPart<?> part : parts) {
			problems.addAll(part.problems(properties));
		}
		return problems;
	}

	/**
	 * Compiles a snapshot of {@code properties} (which {@link #problems} found none in) and makes it current; then
	 * tells every part what it replaced.
	 *
	 * @return the snapshot now current
	 * @throws RuntimeException when a part failed to compile; the current snapshot is left as it was
	 */
	public synchronized ConfigurationSnapshot apply(RelayProperties properties) {
		ConfigurationSnapshot previous = current;
		ConfigurationSnapshot next = build(properties, previous, previous.generation() + 1);
		current = next;
		for (SnapshotPart<?> part : inDependencyOrder) {
			replaced(part, previous, next);
		}
		return next;
	}

	private static <T> void replaced(SnapshotPart<T> part, ConfigurationSnapshot previous, ConfigurationSnapshot next) {
		T before = previous.part(part);
		T after = next.part(part);
		if (before != after) {
			try {
				part.replaced(before, after);
			}
			catch (RuntimeException ex) {
				log.error("Configuration {}: ending what the previous {} governed failed", next.generation(),
						part.partName(), ex);
			}
		}
	}

	private ConfigurationSnapshot build(RelayProperties properties, ConfigurationSnapshot previous, long generation) {
		Compilation compilation = new Compilation(properties, previous);
		for (SnapshotPart<?> part : parts) {
			compilation.part(part);
		}
		inDependencyOrder = List.copyOf(compilation.order);
		return new ConfigurationSnapshot(properties, ConfigurationChecksum.of(properties), generation,
				compilation.compiled);
	}

	/** One snapshot's parts as they are compiled, each once, on first demand. */
	private static final class Compilation implements SnapshotCompilation {

		private static final Object COMPILING = new Object();

		private final RelayProperties properties;

		private final ConfigurationSnapshot previous;

		private final IdentityHashMap<SnapshotPart<?>, Object> compiled = new IdentityHashMap<>();

		/** The parts as their compiling ended: a part after those it read. */
		private final List<SnapshotPart<?>> order = new ArrayList<>();

		Compilation(RelayProperties properties, ConfigurationSnapshot previous) {
			this.properties = properties;
			this.previous = previous;
		}

		@Override
		public RelayProperties properties() {
			return properties;
		}

		@Override
		@SuppressWarnings("unchecked")
		public <T> T part(SnapshotPart<T> part) {
			if (compiled.containsKey(part)) {
				Object value = compiled.get(part);
				if (value == COMPILING) {
					throw new IllegalStateException("The configuration's parts depend on each other: " + part.partName());
				}
				return (T) value;
			}
			compiled.put(part, COMPILING);
			T value = part.compile(this);
			compiled.put(part, value);
			order.add(part);
			return value;
		}

		@Override
		public <T> T previous(SnapshotPart<T> part) {
			return previous == null ? null : previous.part(part);
		}

		@Override
		public RelayProperties previousProperties() {
			return previous == null ? null : previous.properties();
		}

	}

}
