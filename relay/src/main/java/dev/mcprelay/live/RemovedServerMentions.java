package dev.mcprelay.live;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;

/**
 * Whether a change to a virtual server, which a reload cannot apply in this version ({@link LiveScope}), is only the
 * removal of its mentions of servers the same reload removes: its {@code members} and {@code prefix} entries for them.
 * Such a change applies with the removal (a server is removed together with every mention of it); any other change to
 * the unit is still refused. The relay reads a virtual server's members from each snapshot, so the next request sees
 * the virtual server without the removed server. (An API key's {@code servers} is live whole.)
 */
final class RemovedServerMentions {

	private RemovedServerMentions() {
	}

	/**
	 * Whether {@code unit} (as {@link BoundSettings} names it) differs between {@code running} and {@code next} only
	 * by mentions of the {@code removed} servers that {@code next} no longer holds.
	 */
	static boolean onlyDropped(String unit, RelayProperties running, RelayProperties next, Set<String> removed) {
		if (removed.isEmpty()) {
			return false;
		}
		if (unit.startsWith("virtual-servers.")) {
			VirtualServerProperties was = virtualServer(running, unit);
			VirtualServerProperties is = virtualServer(next, unit);
			return was != null && is != null && withoutRemoved(was, removed).equals(is);
		}
		return false;
	}

	private static VirtualServerProperties withoutRemoved(VirtualServerProperties virtual, Set<String> removed) {
		Map<String, String> prefix = new LinkedHashMap<>(virtual.prefix());
		prefix.keySet().removeAll(removed);
		return new VirtualServerProperties(virtual.members().stream().filter(member -> !removed.contains(member)).toList(),
				virtual.toolPrefix(), prefix, virtual.toolSearch());
	}

	private static VirtualServerProperties virtualServer(RelayProperties properties, String unit) {
		return properties.virtualServers().entrySet().stream()
			.filter(entry -> unit.equals("virtual-servers." + BoundSettings.written(entry.getKey())))
			.map(Map.Entry::getValue).findFirst().orElse(null);
	}

}
