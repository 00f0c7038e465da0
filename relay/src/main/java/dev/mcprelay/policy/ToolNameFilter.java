package dev.mcprelay.policy;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.mcprelay.config.ToolsProperties;

/**
 * Decides from a server's {@code tools.allow} and {@code tools.deny} whether a tool is offered: it must match an
 * allow entry (or allow is empty) and no deny entry. An entry is an exact name or a glob where {@code *} matches any
 * run of characters, {@code /} and {@code .} included; matching is case-sensitive, as tool names are.
 */
public final class ToolNameFilter {

	private final Pattern allow;

	private final Pattern deny;

	public ToolNameFilter(ToolsProperties rules) {
		this.allow = rules.allow().isEmpty() ? null : compile(rules.allow());
		this.deny = rules.deny().isEmpty() ? null : compile(rules.deny());
	}

	public boolean offers(String toolName) {
		if (toolName == null) {
			return false;
		}
		return (allow == null || allow.matcher(toolName).matches()) && (deny == null || !deny.matcher(toolName).matches());
	}

	/** One pattern matching any of the globs. */
	private static Pattern compile(List<String> globs) {
		return Pattern.compile(globs.stream().map(ToolNameFilter::globToRegex).collect(Collectors.joining("|")),
				Pattern.DOTALL);
	}

	private static String globToRegex(String glob) {
		StringBuilder regex = new StringBuilder("(?:");
		int start = 0;
		for (int star = glob.indexOf('*'); star >= 0; star = glob.indexOf('*', start)) {
			if (star > start) {
				regex.append(Pattern.quote(glob.substring(start, star)));
			}
			regex.append(".*");
			start = star + 1;
		}
		if (start < glob.length()) {
			regex.append(Pattern.quote(glob.substring(start)));
		}
		return regex.append(')').toString();
	}

}
