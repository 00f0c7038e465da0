package dev.mcprelay.config;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.core.env.CommandLinePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds references to environment variables that the configuration would use as literal text:
 * <ul>
 * <li>a {@code ${VAR}} whose variable is not set, anywhere in the configuration the operator wrote (configuration
 * files, command-line arguments, system properties): Spring Boot leaves the placeholder as text, so an unset
 * {@code ${SESSIONS_SECRET}} would sign sessions with the public text {@code ${SESSIONS_SECRET}}, and an unset
 * {@code ${OTEL_TOKEN}} in an OTLP header would be sent to the collector. In the bound {@code mcp-relay} tree
 * ({@link #find(RelayProperties)}), defaults included, and in every other key ({@link #findInEnvironment});</li>
 * <li>a {@code $VAR} in shell syntax, an upper-case name standing as a word of its own (as in
 * {@code "Bearer $GITHUB_TOKEN"}), which Spring Boot never expands: checked in the values of {@code mcp-relay} and
 * {@code spring.data.redis} as they are written, before any placeholder is resolved, so that a secret that happens to
 * begin with {@code $} ({@code ${SESSIONS_SECRET}} set to {@code $Qm7...}) is never taken for one.</li>
 * </ul>
 * Each is a {@link ConfigurationProblem} naming the property and the variable as written, never a value, which may be
 * a secret.
 *
 * <p>The {@code mcp-relay} tree is walked from the {@link RelayProperties} record itself (records, maps by key, lists
 * by index, text leaves), so a property added tomorrow is covered the day it exists.
 */
public final class UnresolvedVariables {

	/** {@code ${NAME}} or {@code ${NAME:default}} left in a value: the default would have resolved it. */
	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)[^}]*}");

	/**
	 * {@code $NAME} standing as a word of its own (a whole value, or between spaces), {@code NAME} an environment
	 * variable's upper-case name: shell syntax.
	 */
	private static final Pattern SHELL = Pattern.compile("(?<=^|\\s)\\$([A-Z_][A-Z0-9_]*)(?=$|\\s)");

	/** The relay's own properties, whose unset variables {@link #find(RelayProperties)} names. */
	private static final ConfigurationPropertyName RELAY = ConfigurationPropertyName.of("mcp-relay");

	/** The shared store's properties, which the relay uses as its own. */
	private static final ConfigurationPropertyName STORE = ConfigurationPropertyName.of("spring.data.redis");

	/** The property sources an operator writes: command-line arguments and system properties (and files, by type). */
	private static final Set<String> WRITTEN = Set.of(CommandLinePropertySource.COMMAND_LINE_PROPERTY_SOURCE_NAME,
			StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

	private UnresolvedVariables() {
	}

	/** One problem per text value of the bound {@code properties} that refers to a variable not set, in tree order. */
	public static List<ConfigurationProblem> find(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		walk("mcp-relay", properties, (path, value) -> {
			if (value instanceof CharSequence chars) {
				Matcher placeholder = PLACEHOLDER.matcher(chars);
				if (placeholder.find()) {
					problems.add(unset(path, placeholder.group(1)));
				}
			}
		});
		return problems;
	}

	/**
	 * One problem per key the operator wrote (in a configuration file, a command-line argument or a system property)
	 * that would be used as literal text: outside {@code mcp-relay} (which {@link #find(RelayProperties)} covers), a
	 * value that, resolved, still refers to a variable that is not set; under {@code mcp-relay} and
	 * {@code spring.data.redis}, a value written with a variable in shell syntax.
	 */
	public static List<ConfigurationProblem> findInEnvironment(Environment environment) {
		TreeMap<String, ConfigurationProblem> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable) || !written(source)) {
				continue;
			}
			iterable.forEach(name -> {
				String key = name.toString();
				ConfigurationProperty property = source.getConfigurationProperty(name);
				if (property == null || property.getValue() == null || problems.containsKey(key)) {
					return;
				}
				String written = String.valueOf(property.getValue());
				Matcher shell = SHELL.matcher(written);
				if ((RELAY.isAncestorOf(name) || STORE.isAncestorOf(name)) && !PLACEHOLDER.matcher(written).find()
						&& shell.find()) {
					problems.put(key, shellSyntax(key, shell.group(1)));
					return;
				}
				if (RELAY.isAncestorOf(name)) {
					return;
				}
				// resolved leniently: what cannot be resolved stays as written, to be named
				Matcher placeholder = PLACEHOLDER.matcher(environment.resolvePlaceholders(written));
				if (placeholder.find()) {
					problems.put(key, unset(key, placeholder.group(1)));
				}
			});
		}
		return new ArrayList<>(problems.values());
	}

	/** Whether the operator wrote {@code source}: a configuration file, the command line, the system properties. */
	private static boolean written(ConfigurationPropertySource source) {
		Object underlying = source.getUnderlyingSource();
		return underlying instanceof OriginTrackedMapPropertySource
				|| underlying instanceof PropertySource<?> named && WRITTEN.contains(named.getName());
	}

	private static ConfigurationProblem unset(String path, String variable) {
		return new ConfigurationProblem(path, "refers to ${" + variable + "}, which is not set",
				"Set the environment variable " + variable + " (or give a default: ${" + variable + ":value})");
	}

	private static ConfigurationProblem shellSyntax(String path, String variable) {
		return new ConfigurationProblem(path, "holds $" + variable
				+ " in shell syntax, which Spring Boot does not expand: it would be used as written",
				"Write ${" + variable + "} instead of $" + variable);
	}

	/** Whether {@code value} still refers to a variable (then no other check of its form means anything). */
	public static boolean holdsVariable(String value) {
		return value != null && (PLACEHOLDER.matcher(value).find() || SHELL.matcher(value).find());
	}

	/**
	 * Calls {@code leaf} with the property path and value of every value under {@code value} that is no record, map or
	 * list (text, numbers, durations, sizes, enums).
	 */
	public static void walk(String path, Object value, BiConsumer<String, Object> leaf) {
		if (value == null) {
			return;
		}
		if (value instanceof Map<?, ?> map) {
			map.forEach((key, entry) -> walk(path + "." + key, entry, leaf));
		}
		else if (value instanceof List<?> list) {
			for (int i = 0; i < list.size(); i++) {
				walk(path + "[" + i + "]", list.get(i), leaf);
			}
		}
		else if (value.getClass().isRecord()) {
			for (RecordComponent component : value.getClass().getRecordComponents()) {
				walk(path + "." + UnknownRelayProperties.dashed(component.getName()), read(component, value), leaf);
			}
		}
		else {
			leaf.accept(path, value);
		}
	}

	private static Object read(RecordComponent component, Object record) {
		try {
			var accessor = component.getAccessor();
			accessor.trySetAccessible();
			return accessor.invoke(record);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot read " + component, ex);
		}
	}

}
