package dev.mcprelay.live;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcprelay.config.ApiKeyProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;

/**
 * Whether a change to an API key or a virtual server, which a reload cannot apply in this version
 * ({@link LiveScope}), is only the removal of its mentions of servers the same reload removes: the key's
 * {@code servers} entries, the virtual server's {@code members} and {@code prefix} entries for them. Such a change
 * applies with the removal (a server is removed together with every mention of it); any other change to the unit is
 * still refused. The relay reads a key's servers and a virtual server's members from each snapshot, so the next
 * request sees the key and the virtual server without the removed server, and a server added again later under the
 * same id is not opened by a key that no longer names it.
 */
final class RemovedServerMentions {

	private static final Pattern API_KEY = Pattern.compile("security\\.api-keys\\[(\\d+)]");

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
		Matcher key = API_KEY.matcher(unit);
		if (key.matches()) {
			int index = Integer.parseInt(key.group(1));
			List<ApiKeyProperties> was = running.security().apiKeys();
			List<ApiKeyProperties> is = next.security().apiKeys();
			return index < was.size() && index < is.size() && withoutRemoved(was.get(index), removed).equals(is.get(index));
		}
		if (unit.startsWith("virtual-servers.")) {
			VirtualServerProperties was = virtualServer(running, unit);
			VirtualServerProperties is = virtualServer(next, unit);
			return was != null && is != null && withoutRemoved(was, removed).equals(is);
		}
		return false;
	}

	private static ApiKeyProperties withoutRemoved(ApiKeyProperties key, Set<String> removed) {
		return new ApiKeyProperties(key.client(), key.keySha256(),
				key.servers().stream().filter(server -> !removed.contains(server)).toList(), key.management());
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
