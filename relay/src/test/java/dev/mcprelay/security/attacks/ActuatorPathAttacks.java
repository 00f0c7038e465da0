package dev.mcprelay.security.attacks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Generates the spellings an attacker would try of an actuator path ({@code <base-path>/<endpoint>}, the base path
 * {@code management.endpoints.web.base-path}): as written, any character of any segment percent-encoded (upper or
 * lower case, one at a time or all at once) or double-encoded, matrix parameters on any segment, doubled and
 * trailing slashes, an encoded slash or a backslash between segments, dot segments before it, and case variants.
 * Which of them the actuator's handler mapping accepts is for the relay to say, not the generator: the property
 * ({@link ActuatorOriginProperty}) holds for every one the actuator answers.
 */
public final class ActuatorPathAttacks {

	/** One generated spelling. */
	public record Spelling(String name, String path) {

		@Override
		public String toString() {
			return name + " " + path;
		}

	}

	private ActuatorPathAttacks() {
	}

	/** Every spelling of {@code base} (such as {@code /actuator}, or {@code ""} for the root) followed by {@code endpoint}. */
	public static List<Spelling> of(String base, String endpoint) {
		List<String> segments = new ArrayList<>();
		for (String segment : base.split("/")) {
			if (!segment.isEmpty()) {
				segments.add(segment);
			}
		}
		segments.add(endpoint);
		Map<String, Spelling> cases = new LinkedHashMap<>();
		add(cases, "as written", join(segments));
		for (int index = 0; index < segments.size(); index++) {
			int at = index;
			String segment = segments.get(at);
			for (int i = 0; i < segment.length(); i++) {
				int ch = i;
				add(cases, "segment " + at + " char " + ch + " encoded", join(with(segments, at, s -> encodeAt(s, ch, false))));
				add(cases, "segment " + at + " char " + ch + " encoded lower", join(with(segments, at, s -> encodeAt(s, ch, true))));
			}
			add(cases, "segment " + at + " all encoded", join(with(segments, at, ActuatorPathAttacks::encodeAll)));
			add(cases, "segment " + at + " double-encoded", join(with(segments, at, s -> "%25" + hex(s.charAt(0), false) + s.substring(1))));
			add(cases, "segment " + at + " matrix parameter", join(with(segments, at, s -> s + ";x=1")));
			add(cases, "segment " + at + " empty matrix parameter", join(with(segments, at, s -> s + ";")));
			add(cases, "segment " + at + " upper case", join(with(segments, at, s -> s.toUpperCase(Locale.ROOT))));
			add(cases, "segment " + at + " capitalised", join(with(segments, at, s -> Character.toUpperCase(s.charAt(0)) + s.substring(1))));
			add(cases, "doubled slash before segment " + at, join(with(segments, at, s -> "/" + s)));
			if (at > 0) {
				add(cases, "encoded slash before segment " + at, joinWith(segments, at, "%2F"));
				add(cases, "encoded slash lower before segment " + at, joinWith(segments, at, "%2f"));
				add(cases, "backslash before segment " + at, joinWith(segments, at, "\\"));
				add(cases, "dot segment before segment " + at, joinWith(segments, at, "/./"));
				add(cases, "dot-dot segment before segment " + at, joinWith(segments, at, "/x/../"));
			}
		}
		add(cases, "trailing slash", join(segments) + "/");
		add(cases, "leading dot segment", "/." + join(segments));
		add(cases, "leading dot-dot segment", "/x/.." + join(segments));
		add(cases, "every segment matrix parameters", "/" + String.join(";a=b/", segments) + ";a=b");
		add(cases, "query", join(segments) + "?x=1");
		return List.copyOf(cases.values());
	}

	private static void add(Map<String, Spelling> cases, String name, String path) {
		cases.putIfAbsent(path, new Spelling(name, path));
	}

	private static List<String> with(List<String> segments, int index, UnaryOperator<String> change) {
		List<String> changed = new ArrayList<>(segments);
		changed.set(index, change.apply(segments.get(index)));
		return changed;
	}

	private static String join(List<String> segments) {
		return "/" + String.join("/", segments);
	}

	/** The segments joined by slashes, but {@code separator} before segment {@code index}. */
	private static String joinWith(List<String> segments, int index, String separator) {
		return "/" + String.join("/", segments.subList(0, index)) + separator
				+ String.join("/", segments.subList(index, segments.size()));
	}

	private static String encodeAt(String segment, int index, boolean lower) {
		return segment.substring(0, index) + hex(segment.charAt(index), lower) + segment.substring(index + 1);
	}

	private static String encodeAll(String segment) {
		StringBuilder encoded = new StringBuilder();
		segment.chars().forEach(c -> encoded.append(hex((char) c, false)));
		return encoded.toString();
	}

	private static String hex(char c, boolean lower) {
		String hex = "%" + String.format("%02X", (int) c);
		return lower ? hex.toLowerCase(Locale.ROOT) : hex;
	}

}
