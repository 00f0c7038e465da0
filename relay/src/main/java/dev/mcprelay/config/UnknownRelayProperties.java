package dev.mcprelay.config;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds keys under {@code mcp-relay} that no property has: a typo such as {@code servers.x.tool.deny} for
 * {@code tools.deny} would otherwise start the relay as if the key were absent, with a policy the operator believes is
 * on switched off. The known keys are read from the {@link RelayProperties} record tree itself (records, maps by id,
 * lists by index, and leaf values), so a new property is known as soon as it exists. Each unknown key is a
 * {@link ConfigurationProblem} naming it and the nearest valid key.
 *
 * <p>Keys are checked in configuration files, command-line arguments and system properties. Environment variables
 * are checked by {@link RelayEnvironmentVariables}: their names cannot tell {@code MCP_RELAY_ALLOWED_ORIGINS} (a dash)
 * from a dot, so what matters of them is whether they set a property at all.
 */
public final class UnknownRelayProperties {

	private static final String PREFIX = "mcp-relay";

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);

	/** A list index written as a word: {@code servers[0]} as {@code servers.0}. */
	private static final Pattern DIGITS = Pattern.compile("\\d+");

	/**
	 * Each record's components by their uniform name (lower case, no dashes), looked up once per record type: every
	 * name of every source under {@code mcp-relay} is walked (a thousand API keys are thousands of names), and a
	 * record's {@code getRecordComponents()} makes its components anew at each call.
	 */
	private static final ClassValue<Map<String, RecordComponent>> COMPONENTS = new ClassValue<>() {
		@Override
		protected Map<String, RecordComponent> computeValue(Class<?> record) {
			Map<String, RecordComponent> byName = new HashMap<>();
			for (RecordComponent component : record.getRecordComponents()) {
				byName.put(component.getName().toLowerCase(Locale.ROOT), component);
			}
			return Map.copyOf(byName);
		}
	};

	private UnknownRelayProperties() {
	}

	/** One problem per key under {@code mcp-relay} that is not a property, in key order. */
	public static List<ConfigurationProblem> find(Environment environment) {
		TreeSet<String> unknown = new TreeSet<>();
		List<ConfigurationProblem> problems = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source.getUnderlyingSource() instanceof org.springframework.core.env.PropertySource<?> propertySource
					&& StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(propertySource.getName())) {
				continue;
			}
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter(ROOT::isAncestorOf).forEach(name -> {
					String suggestion = check(name);
					if (suggestion != null && unknown.add(name.toString())) {
						problems.add(new ConfigurationProblem(name.toString(), "is not a property of mcp-relay",
								suggestion.isEmpty() ? "Remove it; see the configuration reference in docs/configuration.md"
										: "Did you mean " + suggestion + "? Rename or remove it"));
					}
				});
			}
		}
		problems.sort((a, b) -> a.property().compareTo(b.property()));
		return problems;
	}

	/**
	 * {@code null} when {@code name} is a property (or a part of one); otherwise the nearest valid key, or an empty
	 * string when there is none worth naming.
	 */
	private static String check(ConfigurationPropertyName name) {
		Walk walk = walk(name);
		if (walk.unknownAt() < 0) {
			return null;
		}
		if (!walk.stoppedIn().isRecord()) {
			return walk.path();
		}
		String nearest = nearest(walk.stoppedIn(), name.getElement(walk.unknownAt(), ConfigurationPropertyName.Form.ORIGINAL));
		return nearest == null ? "" : walk.path() + "." + nearest + rest(name, walk.unknownAt() + 1);
	}

	/**
	 * {@code name}, a property under {@code mcp-relay} in any spelling Spring Boot binds (from an environment variable,
	 * {@code mcprelay.servers.a.timeouts.nonstreaming}), as the docs write it, read against the property tree:
	 * {@code mcp-relay.servers.a.timeouts.non-streaming}, each record component dashed, a map key as it came, a list
	 * index in brackets. Elements the tree does not know are kept as they came.
	 */
	static String canonical(ConfigurationPropertyName name) {
		Walk walk = walk(name);
		return walk.unknownAt() < 0 ? walk.path() : walk.path() + rest(name, walk.unknownAt());
	}

	/**
	 * How far the property tree knows {@code name}: the path it knows, written as the docs write it, the index of the
	 * first element it does not know (-1 when it knows them all) and the type that element was looked up in.
	 */
	private record Walk(String path, int unknownAt, Class<?> stoppedIn) {
	}

	/** Walks {@code name} down the property tree from {@link RelayProperties}: one walk for checks and spellings. */
	private static Walk walk(ConfigurationPropertyName name) {
		Type type = RelayProperties.class;
		StringBuilder path = new StringBuilder(PREFIX);
		for (int i = 1; i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
			boolean indexed = name.isNumericIndex(i)
					|| DIGITS.matcher(name.getElement(i, ConfigurationPropertyName.Form.DASHED)).matches();
			Class<?> raw = raw(type);
			RecordComponent component = raw.isRecord()
					? component(raw, name.getElement(i, ConfigurationPropertyName.Form.UNIFORM)) : null;
			if (component != null) {
				path.append('.').append(dashed(component.getName()));
				type = component.getGenericType();
			}
			else if (!raw.isRecord() && Map.class.isAssignableFrom(raw)) {
				path.append('.').append(element);
				type = typeArgument(type, 1);
			}
			else if (!raw.isRecord() && Collection.class.isAssignableFrom(raw) && indexed) {
				path.append('[').append(element).append(']');
				type = typeArgument(type, 0);
			}
			else {
				return new Walk(path.toString(), i, raw);
			}
		}
		return new Walk(path.toString(), -1, raw(type));
	}

	private static String rest(ConfigurationPropertyName name, int from) {
		StringBuilder rest = new StringBuilder();
		for (int i = from; i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
			rest.append(name.isNumericIndex(i) ? "[" + element + "]" : "." + element);
		}
		return rest.toString();
	}

	private static RecordComponent component(Class<?> record, String uniform) {
		return COMPONENTS.get(record).get(uniform);
	}

	/** The component name closest to {@code element}, when it is close enough to be what was meant. */
	private static String nearest(Class<?> record, String element) {
		String wanted = element.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (RecordComponent component : record.getRecordComponents()) {
			int distance = distance(wanted, component.getName().toLowerCase(Locale.ROOT));
			if (distance < bestDistance) {
				best = dashed(component.getName());
				bestDistance = distance;
			}
		}
		return bestDistance <= Math.max(2, wanted.length() / 3) ? best : null;
	}

	/** Levenshtein distance. */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	/** {@code maxBufferedBody} as its property is written, {@code max-buffered-body}. */
	static String dashed(String camel) {
		return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	static Class<?> raw(Type type) {
		if (type instanceof Class<?> cls) {
			return cls;
		}
		if (type instanceof ParameterizedType parameterized) {
			return (Class<?>) parameterized.getRawType();
		}
		return Object.class;
	}

	static Type typeArgument(Type type, int index) {
		return type instanceof ParameterizedType parameterized ? parameterized.getActualTypeArguments()[index]
				: Object.class;
	}

}
