package dev.mcprelay.config;

import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Finds environment variables meant for the relay ({@code MCPRELAY_...}, or {@code MCP_RELAY_...}) that set no
 * property: Spring Boot reads an environment variable by its own rule (the property's path with dots as {@code _},
 * dashes removed, upper case, list indexes as {@code _0_}), and binds a name it cannot map to nothing, silently. The
 * rule's pitfall is the relay's own prefix: {@code MCP_RELAY_SECURITY_MODE} binds (Spring Boot also tries the form with
 * each dash as {@code _}), but {@code MCP_RELAY_SERVERS_GITHUB_URL} does not, because a server id is a map key, and map
 * keys are only found under the canonical prefix {@code MCPRELAY_}. Each such variable is a {@link ConfigurationProblem}
 * naming it and, when the property it was meant for can be told, the variable that sets it.
 *
 * <p>A variable is the relay's when the words after its prefix begin with one of the tree's top-level properties
 * ({@code MCPRELAY_SERVERS_...}, {@code MCP_RELAY_SECURITY_...}); Kubernetes' service links for a Service named
 * {@code mcp-relay} ({@code MCP_RELAY_SERVICE_HOST}, {@code MCP_RELAY_PORT_8080_TCP_ADDR}) are not. A variable "sets a
 * property" when binding the {@code mcp-relay} tree from the environment variables alone takes
 * its value; what other sources set is left out, so a variable that a file or the command line overrides is not
 * reported.
 */
public final class RelayEnvironmentVariables {

	/** Spring Boot's canonical prefix for {@code mcp-relay}: the dash removed. */
	static final String PREFIX = "MCPRELAY_";

	/** The prefix with the dash as {@code _}, which binds everything but map keys. */
	static final String DASHED_PREFIX = "MCP_RELAY_";

	private RelayEnvironmentVariables() {
	}

	/** One problem per variable with the relay's prefix that sets no property, by name. */
	public static List<ConfigurationProblem> find(Environment environment) {
		if (!(environment instanceof ConfigurableEnvironment configurable)) {
			return List.of();
		}
		PropertySource<?> variables = configurable.getPropertySources()
			.get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		if (!(variables instanceof EnumerablePropertySource<?> enumerable)) {
			return List.of();
		}
		Set<String> relays = new TreeSet<>();
		for (String name : enumerable.getPropertyNames()) {
			if (namesAProperty(name)) {
				relays.add(name);
			}
		}
		if (relays.isEmpty()) {
			return List.of();
		}
		relays.removeAll(bound(variables));
		List<ConfigurationProblem> problems = new ArrayList<>();
		for (String variable : relays) {
			String meant = canonical(variable);
			problems.add(new ConfigurationProblem("environment variable " + variable, "sets no property of mcp-relay",
					meant != null && !meant.equals(variable) ? "Write it as " + meant + " (Spring Boot's form: "
							+ PREFIX + ", then the property's path with dots as _ and dashes removed)"
							: "Write MCPRELAY_ and the property's path with dots as _, dashes removed, in upper case (e.g. "
									+ "MCPRELAY_SERVERS_GITHUB_MAXBUFFEREDBODY for mcp-relay.servers.github.max-buffered-body), "
									+ "or remove it; see the configuration reference in docs/configuration.md"));
		}
		return problems;
	}

	/**
	 * Whether {@code variable} is meant for the relay: its prefix, then the words of one of the tree's top-level
	 * properties ({@code SERVERS}, {@code SECURITY}, {@code VIRTUAL_SERVERS}, ...). Other variables with the prefix are
	 * not the relay's: Kubernetes gives every pod {@code MCP_RELAY_SERVICE_HOST}, {@code MCP_RELAY_PORT_8080_TCP} and so
	 * on for a Service named {@code mcp-relay}.
	 */
	public static boolean namesAProperty(String variable) {
		String upper = variable.toUpperCase(Locale.ROOT);
		String rest = upper.startsWith(PREFIX) ? upper.substring(PREFIX.length())
				: upper.startsWith(DASHED_PREFIX) ? upper.substring(DASHED_PREFIX.length()) : null;
		if (rest == null) {
			return false;
		}
		String[] words = rest.split("_");
		for (RecordComponent component : RelayProperties.class.getRecordComponents()) {
			String wanted = component.getName().toUpperCase(Locale.ROOT);
			StringBuilder joined = new StringBuilder();
			for (int i = 0; i < words.length && joined.length() < wanted.length(); i++) {
				joined.append(words[i]);
				if (joined.toString().equals(wanted)) {
					return true;
				}
			}
		}
		return false;
	}

	/** The variables whose values binding {@code mcp-relay} from {@code variables} alone takes. */
	private static Set<String> bound(PropertySource<?> variables) {
		Set<String> used = new HashSet<>();
		ConfigurationPropertySource source = ConfigurationPropertySource.from(variables);
		if (source == null) {
			return used;
		}
		try {
			new Binder(source).bind("mcp-relay", Bindable.of(RelayProperties.class), new AbstractBindHandler() {
				@Override
				public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
						Object result) {
					ConfigurationProperty property = context.getConfigurationProperty();
					if (property != null) {
						String variable = variableOf(property.getOrigin());
						if (variable != null) {
							used.add(variable);
						}
					}
					return super.onSuccess(name, target, context, result);
				}
			});
		}
		catch (RuntimeException unbindable) {
			// the relay's own binding reports it, with the property and the value's problem
		}
		return used;
	}

	private static String variableOf(Origin origin) {
		if (origin instanceof SystemEnvironmentOrigin environment) {
			return environment.getProperty();
		}
		if (origin instanceof PropertySourceOrigin source) {
			return source.getPropertyName();
		}
		return null;
	}

	/**
	 * The canonical variable for the property {@code variable} was meant for, read against the property tree: each
	 * record component's name may span several {@code _}-separated words (its dashes written as {@code _}), a map key
	 * is one word, a list index is digits. {@code null} when the words name no property.
	 */
	static String canonical(String variable) {
		String upper = variable.toUpperCase(Locale.ROOT);
		String rest = upper.startsWith(PREFIX) ? upper.substring(PREFIX.length())
				: upper.startsWith(DASHED_PREFIX) ? upper.substring(DASHED_PREFIX.length()) : null;
		if (rest == null || rest.isEmpty()) {
			return null;
		}
		List<String> path = new ArrayList<>();
		return walk(RelayProperties.class, rest.split("_"), 0, path) ? PREFIX + String.join("_", path) : null;
	}

	private static boolean walk(Type type, String[] words, int at, List<String> path) {
		if (at == words.length) {
			return !UnknownRelayProperties.raw(type).isRecord();
		}
		Class<?> raw = UnknownRelayProperties.raw(type);
		if (raw.isRecord()) {
			for (RecordComponent component : raw.getRecordComponents()) {
				String wanted = component.getName().toUpperCase(Locale.ROOT);
				StringBuilder joined = new StringBuilder();
				for (int end = at; end < words.length && joined.length() < wanted.length(); end++) {
					joined.append(words[end]);
					if (joined.toString().equals(wanted)) {
						path.add(wanted);
						if (walk(component.getGenericType(), words, end + 1, path)) {
							return true;
						}
						path.remove(path.size() - 1);
					}
				}
			}
			return false;
		}
		if (Map.class.isAssignableFrom(raw)) {
			path.add(words[at]);
			if (walk(UnknownRelayProperties.typeArgument(type, 1), words, at + 1, path)) {
				return true;
			}
			path.remove(path.size() - 1);
			return false;
		}
		if (Collection.class.isAssignableFrom(raw)) {
			if (!words[at].matches("\\d+")) {
				return false;
			}
			path.add(words[at]);
			if (walk(UnknownRelayProperties.typeArgument(type, 0), words, at + 1, path)) {
				return true;
			}
			path.remove(path.size() - 1);
			return false;
		}
		return false;
	}

}
