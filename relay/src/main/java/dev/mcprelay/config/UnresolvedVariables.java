package dev.mcprelay.config;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Finds references to environment variables that reached the bound {@code mcp-relay} tree unresolved, in any of its
 * text values: a {@code ${VAR}} whose variable is not set (Spring Boot leaves the placeholder as literal text, so an
 * unset {@code ${SESSIONS_SECRET}} would sign sessions with the public text {@code ${SESSIONS_SECRET}}), and a
 * {@code $VAR} in shell syntax, a word of its own (as in {@code "Bearer $GITHUB_TOKEN"}), which Spring Boot never
 * expands and which would otherwise go upstream as written. Each is a {@link ConfigurationProblem} naming the property
 * and the variable, never the value, which may be a secret.
 *
 * <p>The tree is walked from the {@link RelayProperties} record itself (records, maps by key, lists by index, text
 * leaves), so a property added tomorrow is covered the day it exists.
 */
public final class UnresolvedVariables {

	/** {@code ${NAME}} or {@code ${NAME:default}} left in a value: the default would have resolved it. */
	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)[^}]*}");

	/** {@code $NAME} standing as a word of its own (a whole value, or between spaces): shell syntax. */
	private static final Pattern SHELL = Pattern.compile("(?<=^|\\s)\\$([A-Za-z_][A-Za-z0-9_]*)(?=$|\\s)");

	/** The shared store's properties, which the relay uses as its own. */
	private static final ConfigurationPropertyName STORE = ConfigurationPropertyName.of("spring.data.redis");

	private UnresolvedVariables() {
	}

	/** One problem per text value of {@code properties} that still refers to a variable, in tree order. */
	public static List<ConfigurationProblem> find(RelayProperties properties) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		walk("mcp-relay", properties, (path, value) -> {
			if (!(value instanceof CharSequence chars)) {
				return;
			}
			String text = chars.toString();
			Matcher placeholder = PLACEHOLDER.matcher(text);
			Matcher shell = SHELL.matcher(text);
			if (placeholder.find()) {
				String variable = placeholder.group(1);
				problems.add(new ConfigurationProblem(path, "refers to ${" + variable + "}, which is not set",
						"Set the environment variable " + variable + " (or give a default: ${" + variable + ":value})"));
			}
			else if (shell.find()) {
				String variable = shell.group(1);
				problems.add(new ConfigurationProblem(path, "holds $" + variable
						+ " in shell syntax, which Spring Boot does not expand: it would be used as written",
						"Write ${" + variable + "} instead of $" + variable));
			}
		});
		return problems;
	}

	/**
	 * One problem per key under {@code spring.data.redis} (the shared store's address and credentials, which the relay
	 * uses as its own) whose value, resolved, still refers to a variable that is not set: an unset {@code ${REDIS_PASSWORD}}
	 * in a URL would otherwise be sent to Redis as the password's text.
	 */
	public static List<ConfigurationProblem> findInStoreProperties(Environment environment) {
		TreeMap<String, ConfigurationProblem> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter(STORE::isAncestorOf).forEach(name -> {
					String key = name.toString();
					ConfigurationProperty property = source.getConfigurationProperty(name);
					// resolved leniently: what cannot be resolved stays as written, to be named below
					String value = property == null || property.getValue() == null ? null
							: environment.resolvePlaceholders(String.valueOf(property.getValue()));
					Matcher placeholder = value == null ? null : PLACEHOLDER.matcher(value);
					if (placeholder != null && placeholder.find() && !problems.containsKey(key)) {
						String variable = placeholder.group(1);
						problems.put(key, new ConfigurationProblem(key, "refers to ${" + variable + "}, which is not set",
								"Set the environment variable " + variable + " (or give a default: ${" + variable
										+ ":value})"));
					}
				});
			}
		}
		return new ArrayList<>(problems.values());
	}

	/** Whether {@code value} still refers to a variable (then no other check of its form means anything). */
	public static boolean holdsVariable(String value) {
		return value != null && (PLACEHOLDER.matcher(value).find() || SHELL.matcher(value).find());
	}

	/**
	 * Calls {@code leaf} with the property path and value of every value under {@code value} that is no record, map or
	 * list (text, numbers, durations, sizes, enums).
	 */
	static void walk(String path, Object value, BiConsumer<String, Object> leaf) {
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
