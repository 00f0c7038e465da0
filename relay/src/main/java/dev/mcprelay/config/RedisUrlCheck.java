package dev.mcprelay.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * Checks {@code spring.data.redis.url} at start-up, as Spring Boot's Redis connection will read it: a URI with the
 * scheme {@code redis} or {@code rediss}, a host, a port that is a number, and a database number as its path, if any.
 * A URL that is none is one {@link ConfigurationProblem} naming the property, where it was set and what is wrong;
 * never the URL, whose user info holds the store's password (Spring Boot's own report printed it whole, and other
 * mistakes ended in a stack trace from the connection factory that named no property).
 */
public final class RedisUrlCheck {

	static final ConfigurationPropertyName URL = ConfigurationPropertyName.of("spring.data.redis.url");

	private static final String FIX = "Write redis://[user:password@]host:port[/database] (or rediss:// for TLS), "
			+ "each character of the user and password other than letters, digits and -._~ percent-encoded (/ as %2F, "
			+ "% as %25, @ as %40), or set spring.data.redis.host, port and password instead";

	private RedisUrlCheck() {
	}

	/** The problem of {@code spring.data.redis.url} as {@code environment} has it; none when it is unset or valid. */
	public static List<ConfigurationProblem> find(Environment environment) {
		String url = environment.getProperty(URL.toString());
		String problem = url == null || url.isBlank() ? null : problem(url.strip());
		return problem == null ? List.of() : List.of(unreadable(environment, problem));
	}

	/**
	 * {@code spring.data.redis.url} reported as {@code problem}, naming where it was set, never the URL: also what
	 * Spring Data Redis refused for a reason this check does not know ({@link RedisUrlFailureAnalyzer}).
	 */
	static ConfigurationProblem unreadable(Environment environment, String problem) {
		return new ConfigurationProblem(URL + where(environment), problem
				+ " (the URL is not printed: it may hold the store's password)", FIX);
	}

	/** What is wrong with {@code url} as a Redis URL, or {@code null}. Never quotes the URL. */
	static String problem(String url) {
		URI uri;
		try {
			uri = new URI(url);
		}
		catch (URISyntaxException ex) {
			return "is not a URL: it holds a character that must be percent-encoded (a space, or a % that starts no "
					+ "escape of two hexadecimal digits) at index " + ex.getIndex();
		}
		// in lower case, as Spring Data Redis reads it (REDIS:// is refused there, with the URL printed whole)
		String scheme = uri.getScheme() == null ? "" : uri.getScheme();
		if (!scheme.equals("redis") && !scheme.equals("rediss")) {
			return "does not begin with redis:// or rediss:// (in lower case)";
		}
		if (uri.getHost() == null || uri.getHost().isEmpty()) {
			return "names no host that can be read (a port that is not a number, or a /, @ or : in the password "
					+ "that is not percent-encoded, ends the host early)";
		}
		if (uri.getPort() == 0 || uri.getPort() > 65535) {
			return "has a port out of range (1 to 65535)";
		}
		String path = uri.getRawPath();
		if (path != null && !path.isEmpty() && !path.equals("/") && !path.substring(1).matches("[0-9]{1,9}")) {
			return "has a path that is not a database number (such as /0)";
		}
		return null;
	}

	private static String where(Environment environment) {
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			ConfigurationProperty property = source.getConfigurationProperty(URL);
			if (property != null) {
				return property.getOrigin() == null ? "" : " (" + property.getOrigin() + ")";
			}
		}
		return "";
	}

}
