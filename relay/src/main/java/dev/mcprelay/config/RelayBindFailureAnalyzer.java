package dev.mcprelay.config;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.util.unit.DataSize;

/**
 * Reports a value of the relay's configuration, or of its store's ({@code spring.data.redis}), that Spring Boot could
 * not bind (most often one that does not convert to the property's type: an unknown security mode, a duration or a
 * size it cannot read) as a {@link ConfigurationProblem}, in the relay's start-up report: the property, where it was
 * set (the environment variable, or the file and line, or the command line) and what it takes; never the value, nor
 * the messages of the failure, which quote it. Spring Boot's own report prints the value ({@code Value: "..."}), and a
 * value written in the wrong place may be a secret. Ordered before Spring Boot's analyzers, so that it decides first;
 * a failure to bind any other property is left to them (it returns {@code null}).
 */
class RelayBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	private static final List<ConfigurationPropertyName> OWN = List.of(ConfigurationPropertyName.of("mcp-relay"),
			ConfigurationPropertyName.of("spring.data.redis"));

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		ConfigurationPropertyName name = cause.getName();
		if (name == null || OWN.stream().noneMatch(own -> own.equals(name) || own.isAncestorOf(name))) {
			return null;
		}
		ConfigurationProperty property = cause.getProperty();
		String where = property == null || property.getOrigin() == null ? "" : " (" + property.getOrigin() + ")";
		String expected = expected(cause.getTarget());
		ConfigurationProblem problem = new ConfigurationProblem(name + where,
				"cannot be read as " + expected + " (its value is not printed: it may be a secret written in the wrong place)",
				"Write " + expected + " (see the configuration reference in docs/configuration.md)");
		return InvalidRelayConfigurationFailureAnalyzer.analysis(List.of(problem), cause);
	}

	/** Runs before Spring Boot's own analyzers, which print the value. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/** What a value of {@code target}'s type is written as, in words and examples. */
	static String expected(Bindable<?> target) {
		ResolvableType type = target == null ? ResolvableType.NONE : target.getType();
		Class<?> raw = type.resolve(Object.class);
		if (raw.isEnum()) {
			return "one of " + Arrays.stream(raw.getEnumConstants())
				.map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.collect(Collectors.joining(", "));
		}
		if (raw == Duration.class) {
			return "a duration with its unit (such as 500ms, 30s, 5m or 1h)";
		}
		if (raw == DataSize.class) {
			return "a size with its unit (such as 512KB or 50MB)";
		}
		if (raw == Boolean.class || raw == boolean.class) {
			return "true or false";
		}
		if (raw.isPrimitive() || Number.class.isAssignableFrom(raw)) {
			return "a number";
		}
		if (Map.class.isAssignableFrom(raw)) {
			return "keys and values (a map)";
		}
		if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
			return "a list";
		}
		if (raw.isRecord()) {
			return "a group of properties (" + simpleName(raw) + ")";
		}
		return "a value of type " + simpleName(raw);
	}

	private static String simpleName(Type type) {
		return type instanceof Class<?> clazz ? clazz.getSimpleName() : type.getTypeName();
	}

}
