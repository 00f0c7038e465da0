package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.mcprelay.config.ToolSearchProperties;

/**
 * One configured virtual server, resolved: its members in configuration order ({@code *} expanded) and the prefix of
 * each member's tool and prompt names.
 *
 * @param id the virtual server's id, its path segment
 * @param members the servers it composes, in the order that wins a name two of them publish
 * @param prefixes each member's prefix ({@code ""} for none)
 * @param toolSearch tool search over the merged catalogue
 * @param version the version of its settings this is, which its sessions and streams end with
 * ({@link VirtualServerVersion}: shared by each configuration that leaves them as they were)
 * @param terms its settings as its sessions keep them ({@link VirtualSessionTerms}), made once per configuration
 */
public record VirtualServer(String id, List<String> members, Map<String, String> prefixes,
		ToolSearchProperties toolSearch, VirtualServerVersion version, String terms) {

	public VirtualServer {
		members = List.copyOf(members);
		prefixes = Map.copyOf(prefixes);
	}

	/** A virtual server of a version of its own, with no terms (a test's). */
	public VirtualServer(String id, List<String> members, Map<String, String> prefixes,
			ToolSearchProperties toolSearch) {
		this(id, members, prefixes, toolSearch, new VirtualServerVersion(), "");
	}

	/** The prefix of {@code member}'s names. */
	public String prefixOf(String member) {
		return prefixes.getOrDefault(member, "");
	}

	/** {@code name} as the client sees it for a name {@code member} published. */
	public String exposedName(String member, String name) {
		return prefixOf(member) + name;
	}

	/**
	 * The members among {@code usable}, in configuration order, that may have published {@code exposed}: those whose
	 * prefix it starts with and leaves a name after. More than one when prefixes overlap (two members without one).
	 */
	public List<String> candidates(String exposed, List<String> usable) {
		List<String> candidates = new ArrayList<>();
		for (String member : members) {
			String prefix = prefixOf(member);
			if (usable.contains(member) && exposed.length() > prefix.length() && exposed.startsWith(prefix)) {
				candidates.add(member);
			}
		}
		return candidates;
	}

	/** The name {@code member} published, for {@code exposed} as the client sent it. */
	public String memberName(String member, String exposed) {
		return exposed.substring(prefixOf(member).length());
	}

}
