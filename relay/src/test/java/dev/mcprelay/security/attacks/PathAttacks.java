package dev.mcprelay.security.attacks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Generates the paths an attacker would try against the MCP endpoint's route forms ({@code /mcp} for the default
 * server, {@code /mcp/{id}}, {@code /{id}/mcp}), each with the server it canonically names, known from how it was made,
 * not from the relay's own parser: a form as written, and its id with any of its characters percent-encoded (upper or
 * lower case, one at a time or all at once), name their server; every other disguise (encoding in a fixed {@code mcp}
 * segment, double encoding, dot segments, doubled slashes, backslashes, an encoded slash or NUL, matrix parameters, a
 * trailing slash, case variants) names none and must reach no upstream.
 */
public final class PathAttacks {

	/** One generated path and the server it canonically names ({@code null}: none; it must reach no upstream). */
	public record PathAttack(String name, String path, String target) {

		@Override
		public String toString() {
			return name + " " + path;
		}

	}

	private PathAttacks() {
	}

	/** Every case for servers {@code ids}, with {@code defaultServer} served at {@code /mcp}. */
	public static List<PathAttack> of(List<String> ids, String defaultServer) {
		Map<String, PathAttack> cases = new LinkedHashMap<>();
		List<Form> forms = new ArrayList<>();
		forms.add(new Form("default", List.of("mcp"), -1, defaultServer));
		for (String id : ids) {
			forms.add(new Form("mcp-first", List.of("mcp", id), 1, id));
			forms.add(new Form("mcp-last", List.of(id, "mcp"), 0, id));
		}
		for (Form form : forms) {
			add(cases, form.name + " as written", form.path(), form.target);
			if (form.idIndex >= 0) {
				String id = form.segments.get(form.idIndex);
				for (int i = 0; i < id.length(); i++) {
					int at = i;
					add(cases, form.name + " id char " + i + " encoded", form.with(form.idIndex, s -> encodeAt(s, at, false)),
							form.target);
					add(cases, form.name + " id char " + i + " encoded lower", form.with(form.idIndex, s -> encodeAt(s, at, true)),
							form.target);
				}
				add(cases, form.name + " id all encoded", form.with(form.idIndex, s -> encodeAll(s, false)), form.target);
				add(cases, form.name + " id double-encoded", form.with(form.idIndex, s -> doubleEncodeAt(s, 0)), null);
				add(cases, form.name + " id encoded slash", form.with(form.idIndex, s -> s.charAt(0) + "%2F" + s.substring(1)), null);
				add(cases, form.name + " id encoded slash lower", form.with(form.idIndex, s -> s.charAt(0) + "%2f" + s.substring(1)), null);
				add(cases, form.name + " id upper case", form.with(form.idIndex, s -> s.toUpperCase(Locale.ROOT)), null);
				add(cases, form.name + " id capitalised", form.with(form.idIndex, s -> Character.toUpperCase(s.charAt(0)) + s.substring(1)), null);
				add(cases, form.name + " id as a dot segment", form.with(form.idIndex, s -> "."), null);
				add(cases, form.name + " id as dot-dot", form.with(form.idIndex, s -> ".."), null);
			}
			for (int index = 0; index < form.segments.size(); index++) {
				if (index == form.idIndex) {
					continue;
				}
				int fixed = index;
				for (int i = 0; i < 3; i++) {
					int at = i;
					add(cases, form.name + " mcp char " + i + " encoded", form.with(fixed, s -> encodeAt(s, at, false)), null);
					add(cases, form.name + " mcp char " + i + " encoded lower", form.with(fixed, s -> encodeAt(s, at, true)), null);
					add(cases, form.name + " mcp char " + i + " double-encoded", form.with(fixed, s -> doubleEncodeAt(s, at)), null);
				}
				add(cases, form.name + " mcp all encoded", form.with(fixed, s -> encodeAll(s, false)), null);
				add(cases, form.name + " mcp upper case", form.with(fixed, s -> "MCP"), null);
				add(cases, form.name + " mcp capitalised", form.with(fixed, s -> "Mcp"), null);
				add(cases, form.name + " mcp mixed case", form.with(fixed, s -> "mCp"), null);
			}
			for (int index = 0; index < form.segments.size(); index++) {
				int at = index;
				add(cases, form.name + " matrix parameter on segment " + at, form.with(at, s -> s + ";x=1"), null);
				add(cases, form.name + " NUL after segment " + at, form.with(at, s -> s + "%00"), null);
				add(cases, form.name + " dot segment before " + at, form.with(at, s -> "./" + s), null);
				add(cases, form.name + " encoded dot segment before " + at, form.with(at, s -> "%2e/" + s), null);
				add(cases, form.name + " dot-dot after a detour before " + at, form.with(at, s -> "x/../" + s), null);
				add(cases, form.name + " encoded dot-dot before " + at, form.with(at, s -> "x/%2E%2E/" + s), null);
				add(cases, form.name + " doubled slash before " + at, form.with(at, s -> "/" + s), null);
				if (at > 0) {
					add(cases, form.name + " backslash before " + at, form.joined(at, "\\"), null);
					add(cases, form.name + " encoded backslash before " + at, form.joined(at, "%5C"), null);
					add(cases, form.name + " encoded backslash lower before " + at, form.joined(at, "%5c"), null);
					add(cases, form.name + " encoded slash before " + at, form.joined(at, "%2F"), null);
				}
			}
			add(cases, form.name + " trailing slash", form.path() + "/", null);
			add(cases, form.name + " trailing dot segment", form.path() + "/.", null);
			add(cases, form.name + " leading doubled slash", "/" + form.path(), null);
		}
		return List.copyOf(cases.values());
	}

	private static void add(Map<String, PathAttack> cases, String name, String path, String target) {
		cases.putIfAbsent(path, new PathAttack(name, path, target));
	}

	private static String encodeAt(String segment, int at, boolean lower) {
		return segment.substring(0, at) + hex(segment.charAt(at), lower) + segment.substring(at + 1);
	}

	/** The character at {@code at} encoded twice: {@code m} becomes {@code %256D}. */
	private static String doubleEncodeAt(String segment, int at) {
		return segment.substring(0, at) + "%25" + hex(segment.charAt(at), false).substring(1) + segment.substring(at + 1);
	}

	private static String encodeAll(String segment, boolean lower) {
		StringBuilder encoded = new StringBuilder();
		segment.chars().forEach(c -> encoded.append(hex((char) c, lower)));
		return encoded.toString();
	}

	private static String hex(char c, boolean lower) {
		String hex = String.format("%%%02X", (int) c);
		return lower ? hex.toLowerCase(Locale.ROOT) : hex;
	}

	/** A route form: its segments, which one is the id ({@code -1}: none), the server it names. */
	private record Form(String name, List<String> segments, int idIndex, String target) {

		String path() {
			return "/" + String.join("/", segments);
		}

		String with(int index, UnaryOperator<String> change) {
			List<String> changed = new ArrayList<>(segments);
			changed.set(index, change.apply(changed.get(index)));
			return "/" + String.join("/", changed);
		}

		/** The path with the slash before segment {@code index} replaced by {@code separator}. */
		String joined(int index, String separator) {
			StringBuilder path = new StringBuilder();
			for (int i = 0; i < segments.size(); i++) {
				path.append(i == index ? separator : "/").append(segments.get(i));
			}
			return path.toString();
		}

	}

}
