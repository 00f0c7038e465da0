package dev.mcprelay.config;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Finds references to environment variables that the configuration would use as literal text:
 * <ul>
 * <li>a {@code ${VAR}} whose variable is not set, anywhere in the configuration the operator wrote (configuration
 * files, command-line arguments, system properties): Spring Boot leaves the placeholder as text, so an unset
 * {@code ${SESSIONS_SECRET}} would sign sessions with the public text {@code ${SESSIONS_SECRET}}, and an unset
 * {@code ${OTEL_TOKEN}} in an OTLP header would be sent to the collector. In the bound {@code mcp-relay} tree
 * ({@link #find(RelayProperties, Environment)}), each value as written in its source, and in every other key ({@link #findInEnvironment});</li>
 * <li>a {@code $VAR} in shell syntax, an upper-case name standing as a word of its own (as in
 * {@code "Bearer $GITHUB_TOKEN"}), which Spring Boot never expands: checked in the values of {@code mcp-relay} and
 * {@code spring.data.redis} and of the environment variables meant for the relay, as they are written, before any placeholder is resolved, so that a secret that happens to
 * begin with {@code $} ({@code ${SESSIONS_SECRET}} set to {@code $Qm7...}) is never taken for one.</li>
 * </ul>
 * Each is a {@link ConfigurationProblem} naming the property and saying what is wrong. It names the variable too only
 * when the text is one an operator writes as configuration, in a configuration file, a command-line argument or a
 * system property, where {@code ${...}} is Spring Boot's placeholder syntax (so what stands between the braces is a
 * name the operator wrote, not text of a secret), and only when that name is an environment variable's, in upper case
 * ({@code ${SESSIONS_SECRET}}). A value set in an environment variable ({@code MCPRELAY_SESSIONS_SECRET}, a dotted
 * name, {@code SPRING_APPLICATION_JSON}) is often the secret itself ({@code kP9#x2${Wq7vLm}Tz4...}, {@code $ABC123}):
 * of such a value, and of any name that is not an environment variable's, nothing is ever printed ("refers to a
 * variable that is not set", "holds shell syntax").
 *
 * <p>The {@code mcp-relay} tree is walked from the {@link RelayProperties} record itself ({@link BoundPropertyTree}),
 * so a property added tomorrow is covered the day it exists; a value's text as written, and whether its source may be
 * named, is read through {@link WrittenProperties}.
 */
public final class UnresolvedVariables {

	/** {@code ${NAME}} or {@code ${NAME:default}} left in a value: the default would have resolved it. */
	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)[^}]*}");

	/**
	 * {@code $NAME} standing as a word of its own (a whole value, or between spaces), {@code NAME} an environment
	 * variable's upper-case name: shell syntax.
	 */
	private static final Pattern SHELL = Pattern.compile("(?<=^|\\s)\\$([A-Z_][A-Z0-9_]*)(?=$|\\s)");

	/** The relay's own properties, whose unset variables {@link #find(RelayProperties, Environment)} names. */
	private static final ConfigurationPropertyName RELAY = ConfigurationPropertyName.of("mcp-relay");

	/** The shared store's properties, which the relay uses as its own. */
	private static final ConfigurationPropertyName STORE = ConfigurationPropertyName.of("spring.data.redis");

	/** The relay's top-level properties, and its store's: what an environment variable of theirs binds under. */
	private static final List<ConfigurationPropertyName> BOUND = boundProperties();

	/** An environment variable's name as the docs write them: the only names a problem prints. */
	private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Z_][A-Z0-9_]*");

	private UnresolvedVariables() {
	}

	/**
	 * One problem per text value of the bound {@code properties} whose value as written (in the property source
	 * {@code environment} took it from, before any placeholder was resolved) refers to a variable that is not set, in
	 * tree order. The bound value itself is never scanned: a variable's value may hold {@code ${...}} as text (a secret
	 * {@code kP9#x2${Wq7vLm}...} behind {@code ${SESSIONS_SECRET}}), which is no variable and must not be printed. A
	 * value no source holds (a default of the record) is written by no operator and not checked.
	 */
	public static List<ConfigurationProblem> find(RelayProperties properties, Environment environment) {
		List<ConfigurationProblem> problems = new ArrayList<>();
		BoundPropertyTree.walk("mcp-relay", RELAY, properties, (path, name, value) -> {
			if (value instanceof CharSequence) {
				ConfigurationProperty written = WrittenProperties.written(name, environment);
				String variable = written == null ? null
						: unsetVariable(String.valueOf(written.getValue()), environment);
				if (variable != null) {
					problems.add(unset(path, variable, WrittenProperties.namable(written.getSource())));
				}
			}
		});
		return problems;
	}

	/**
	 * The first variable {@code written} refers to that is neither set in {@code environment} nor given a default,
	 * or {@code null}: {@code ${NAME}} with {@code NAME} not set, or such a reference inside the default of a
	 * {@code ${OTHER:default}} whose {@code OTHER} is not set either. Only the text as written is read; the value a
	 * set variable resolves to is never looked into.
	 */
	static String unsetVariable(String written, Environment environment) {
		int start = written.indexOf("${");
		while (start >= 0) {
			int end = closing(written, start + 2);
			if (end < 0) {
				return null; // no placeholder: Spring Boot takes an unclosed ${ as text
			}
			String inside = written.substring(start + 2, end);
			int colon = separator(inside);
			String variable = colon < 0 ? inside : inside.substring(0, colon);
			if (!environment.containsProperty(variable)) {
				if (colon < 0) {
					return variable;
				}
				String inDefault = unsetVariable(inside.substring(colon + 1), environment);
				if (inDefault != null) {
					return inDefault;
				}
			}
			start = written.indexOf("${", end + 1);
		}
		return null;
	}

	/** The index of the {@code }} that closes a placeholder whose name begins at {@code from}, nested ones skipped. */
	private static int closing(String text, int from) {
		int depth = 0;
		for (int i = from; i < text.length(); i++) {
			if (text.startsWith("${", i)) {
				depth++;
				i++;
			}
			else if (text.charAt(i) == '}') {
				if (depth == 0) {
					return i;
				}
				depth--;
			}
		}
		return -1;
	}

	/** The index of the {@code :} between a placeholder's name and its default, outside nested ones, or -1. */
	private static int separator(String inside) {
		int depth = 0;
		for (int i = 0; i < inside.length(); i++) {
			if (inside.startsWith("${", i)) {
				depth++;
				i++;
			}
			else if (inside.charAt(i) == '}') {
				depth--;
			}
			else if (inside.charAt(i) == ':' && depth == 0) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * One problem per key the operator wrote (in a configuration file, a command-line argument, a system property or
	 * {@code SPRING_APPLICATION_JSON}) that would be used as literal text: outside {@code mcp-relay} (which
	 * {@link #find(RelayProperties, Environment)} covers), a value whose text as written refers to a variable that is
	 * not set and has no default; under {@code mcp-relay} and {@code spring.data.redis}, a value written with a
	 * variable in shell syntax, there and in the environment variables that set them
	 * ({@link #shellSyntaxInRelayVariables}).
	 */
	public static List<ConfigurationProblem> findInEnvironment(Environment environment) {
		TreeMap<String, ConfigurationProblem> problems = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| !WrittenProperties.written(source) && !WrittenProperties.isApplicationJson(source)) {
				continue;
			}
			boolean namable = WrittenProperties.namable(source);
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
					problems.put(key, shellSyntax(key, shell.group(1), namable));
					return;
				}
				if (RELAY.isAncestorOf(name)) {
					return;
				}
				String variable = unsetVariable(written, environment);
				if (variable != null) {
					problems.put(key, unset(key, variable, namable));
				}
			});
		}
		problems.putAll(shellSyntaxInRelayVariables(environment));
		return new ArrayList<>(problems.values());
	}

	/**
	 * One problem per environment variable that sets a property of the relay or of its store, by any name Spring Boot
	 * binds ({@link #setsRelayProperty}: {@code MCPRELAY_...}, {@code MCP_RELAY_...}, the property's own dotted name
	 * {@code mcp-relay.servers.up.authorization=...}, and the other spellings Spring Boot maps), whose value holds a variable in
	 * shell syntax: the operator wrote those values too ({@code MCPRELAY_SERVERS_UP_HEADERS_0_VALUE='Bearer
	 * $GITHUB_TOKEN'}), and Spring Boot expands no {@code $VAR} in them either. Named by the environment variable,
	 * never by anything of its value, which may be the secret itself.
	 */
	private static Map<String, ConfigurationProblem> shellSyntaxInRelayVariables(Environment environment) {
		Map<String, ConfigurationProblem> problems = new TreeMap<>();
		if (!(environment instanceof ConfigurableEnvironment configurable) || !(configurable.getPropertySources()
			.get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME) instanceof EnumerablePropertySource<?> variables)) {
			return problems;
		}
		for (String variable : variables.getPropertyNames()) {
			Object value = variables.getProperty(variable);
			if (value == null || !setsRelayProperty(variable) || PLACEHOLDER.matcher(String.valueOf(value)).find()) {
				continue;
			}
			Matcher shell = SHELL.matcher(String.valueOf(value));
			if (shell.find()) {
				String key = "environment variable " + variable;
				problems.put(key, shellSyntax(key, shell.group(1), false));
			}
		}
		return problems;
	}

	/**
	 * Whether Spring Boot binds environment variable {@code variable} to a property of the relay (under one of the
	 * {@link RelayProperties} tree's top-level properties) or of its store, decided by Spring Boot's own mapping of
	 * environment variables: the variable alone, as a system-environment property source, asked for those properties.
	 * So every spelling Spring Boot binds is one: {@code MCPRELAY_...}, {@code MCP_RELAY_...}, the dotted
	 * {@code mcp-relay.servers.up.authorization}, and {@code MCP-RELAY_...}, {@code mcp-relay_...} or
	 * {@code MCP-RELAY.SERVERS...}; Kubernetes' service links for a Service named {@code mcp-relay}
	 * ({@code MCP_RELAY_SERVICE_HOST}) are under no property.
	 */
	static boolean setsRelayProperty(String variable) {
		ConfigurationPropertySource alone = ConfigurationPropertySource.from(new SystemEnvironmentPropertySource(
				StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(variable, "")));
		if (alone == null) {
			return false;
		}
		for (ConfigurationPropertyName property : BOUND) {
			if (alone.getConfigurationProperty(property) != null
					|| alone.containsDescendantOf(property) == ConfigurationPropertyState.PRESENT) {
				return true;
			}
		}
		return false;
	}

	private static List<ConfigurationPropertyName> boundProperties() {
		List<ConfigurationPropertyName> names = new ArrayList<>();
		for (RecordComponent component : RelayProperties.class.getRecordComponents()) {
			names.add(RELAY.append(UnknownRelayProperties.dashed(component.getName())));
		}
		names.add(STORE);
		return List.copyOf(names);
	}

	private static ConfigurationProblem unset(String path, String variable, boolean namable) {
		if (!namable || !VARIABLE_NAME.matcher(variable).matches()) {
			return new ConfigurationProblem(path, "refers to a variable that is not set (Spring Boot would use the "
					+ "text as written)", "Set the variable the value refers to, or give it a default (${NAME:value})");
		}
		return new ConfigurationProblem(path, "refers to ${" + variable + "}, which is not set",
				"Set the environment variable " + variable + " (or give a default: ${" + variable + ":value})");
	}

	private static ConfigurationProblem shellSyntax(String path, String variable, boolean namable) {
		if (!namable) {
			return new ConfigurationProblem(path, "holds shell syntax ($ and a variable's name), which Spring Boot "
					+ "does not expand: it would be used as written", "Write ${NAME} instead of $NAME");
		}
		return new ConfigurationProblem(path, "holds $" + variable
				+ " in shell syntax, which Spring Boot does not expand: it would be used as written",
				"Write ${" + variable + "} instead of $" + variable);
	}

	/** Whether {@code value} still refers to a variable (then no other check of its form means anything). */
	public static boolean holdsVariable(String value) {
		return value != null && (PLACEHOLDER.matcher(value).find() || SHELL.matcher(value).find());
	}

}
