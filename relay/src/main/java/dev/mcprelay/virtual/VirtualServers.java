package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.VirtualServerProperties;
import dev.mcprelay.http.ReloadEnding;
import dev.mcprelay.interceptors.toolsearch.ToolIndex;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * The configured virtual servers ({@code mcp-relay.virtual-servers}), a part of each configuration snapshot: resolved
 * against that snapshot's servers, so {@code members: ["*"]} is every server of the snapshot a request runs on (a
 * server a reload removed is no member of the next request's virtual servers, one it added is), and a named member is
 * one of them.
 *
 * <p>Each virtual server is of a {@link VirtualServerVersion}: the previous snapshot's while its settings are as they
 * were (but for the mentions of servers the same reload removes, which leave with them), a new one when a reload adds
 * it or changes any of its settings ({@code members}, {@code tool-prefix}, {@code prefix}, {@code tool-search}). Once
 * the new snapshot is current ({@link #replaced}), the version of a virtual server it removed or changed ends: its
 * streams and calls in flight end with {@code server_removed} or {@code session_ended}, and what keeps its sessions
 * ends them ({@link #onRetired}): a client initializes again, on the new settings. But a session of the new settings
 * (opened on a replica that applied them first) that this replica served on the old ones carries on in the new
 * version, its streams and calls with it, when the new version only added members
 * ({@link VirtualServerVersion#successorFor}). A virtual server left as it was
 * keeps its sessions and streams.
 */
@Component
public class VirtualServers implements SnapshotPart<Map<String, VirtualServer>> {

	private static final Logger log = LoggerFactory.getLogger(VirtualServers.class);

	/** Who ends what a version kept (its sessions, streams, catalogues) once it ended. */
	private final List<Consumer<VirtualServer>> retiring = new CopyOnWriteArrayList<>();

	/** Who tells a version's open streams that its members changed, and which members joined or left. */
	private final List<BiConsumer<VirtualServer, List<String>>> regrouping = new CopyOnWriteArrayList<>();

	@Override
	public String partName() {
		return "virtual servers";
	}

	/**
	 * Every virtual server of the snapshot, in the previous one's version where its settings did not change; the tool
	 * index's classes loaded here, off the event loops, when a new version searches.
	 */
	@Override
	public Map<String, VirtualServer> compile(SnapshotCompilation compilation) {
		RelayProperties properties = compilation.properties();
		Map<String, VirtualServer> previous = compilation.previous(this);
		RelayProperties before = compilation.previousProperties();
		Set<String> removed = new HashSet<>(before == null ? Set.of() : before.servers().keySet());
		removed.removeAll(properties.servers().keySet());
		Map<String, VirtualServer> resolved = new LinkedHashMap<>();
		boolean newSearch = false;
		for (Map.Entry<String, VirtualServerProperties> entry : properties.virtualServers().entrySet()) {
			String id = entry.getKey();
			VirtualServer was = previous == null ? null : previous.get(id);
			boolean same = was != null && sameSettings(before.virtualServers().get(id), entry.getValue(), removed);
			VirtualServerVersion version = same ? was.version()
					: was != null ? new VirtualServerVersion(was.version()) : new VirtualServerVersion();
			VirtualServer server = resolve(id, entry.getValue(), properties, version);
			resolved.put(id, server.equals(was) ? was : server);
			newSearch |= !same && server.toolSearch().enabled();
		}
		if (newSearch) {
			ToolIndex.warmUp();
		}
		return resolved.equals(previous) ? previous : Collections.unmodifiableMap(resolved);
	}

	/**
	 * Ends the version of each virtual server {@code next} removed or changed: its streams and calls end first (they
	 * hear {@link VirtualServerVersion#ended()}, answered and counted), then what keeps its sessions ends them.
	 */
	@Override
	public void replaced(Map<String, VirtualServer> previous, Map<String, VirtualServer> next) {
		List<VirtualServer> ended = new ArrayList<>();
		Map<VirtualServer, List<String>> regrouped = new LinkedHashMap<>();
		previous.forEach((id, was) -> {
			VirtualServer is = next.get(id);
			if (is != null && is.version() == was.version() && !is.members().equals(was.members())) {
				regrouped.put(is, joinedOrLeft(was.members(), is.members()));
			}
			if (is == null || is.version() != was.version()) {
				log.info("Virtual server '{}' was {} by a configuration reload: its sessions end{}", id,
						is == null ? "removed" : "changed", !VirtualServerVersion.keepsEveryMember(was, is) ? ""
								: " (but those opened under its new settings on a replica that applied them first)");
				was.version().end(is == null ? ReloadEnding.SERVER_REMOVED : ReloadEnding.SESSION_ENDED, was, is);
				ended.add(was);
			}
		});
		ended.forEach(server -> retiring.forEach(retire -> retire.accept(server)));
		regrouped.forEach((server, changed) -> regrouping.forEach(regroup -> regroup.accept(server, changed)));
	}

	/** The members that are in {@code is} and not {@code was}, then those in {@code was} and not {@code is}. */
	private static List<String> joinedOrLeft(List<String> was, List<String> is) {
		List<String> changed = new ArrayList<>(is);
		changed.removeAll(was);
		was.stream().filter(member -> !is.contains(member)).forEach(changed::add);
		return changed;
	}

	/**
	 * Calls {@code regroup} with each virtual server whose members a reload changed while leaving its version (and so
	 * its sessions) as it was ({@code members: ["*"]} gaining or losing a server, a removed server's mention leaving
	 * with it), and the members that joined or left it. Must not block.
	 */
	void onMembersChanged(BiConsumer<VirtualServer, List<String>> regroup) {
		regrouping.add(regroup);
	}

	/**
	 * Calls {@code retire} with each virtual server whose version a reload ended, once its streams heard it: to end
	 * the sessions, streams and catalogues kept of that version. Must not block.
	 */
	void onRetired(Consumer<VirtualServer> retire) {
		retiring.add(retire);
	}

	/** Every virtual server of {@code properties}, resolved against their servers, by id in configuration order. */
	public static Map<String, VirtualServer> resolve(RelayProperties properties) {
		Map<String, VirtualServer> resolved = new LinkedHashMap<>();
		properties.virtualServers()
			.forEach((id, virtual) -> resolved.put(id, resolve(id, virtual, properties, new VirtualServerVersion())));
		return Collections.unmodifiableMap(resolved);
	}

	private static VirtualServer resolve(String id, VirtualServerProperties virtual, RelayProperties properties,
			VirtualServerVersion version) {
		List<String> members = virtual.members().contains("*") ? new ArrayList<>(properties.servers().keySet())
				: virtual.members().stream().filter(properties.servers()::containsKey).toList();
		Map<String, String> prefixes = new LinkedHashMap<>();
		members.forEach(member -> prefixes.put(member, virtual.prefixOf(member)));
		String terms = VirtualSessionTerms.of(virtual);
		version.holds(terms);
		return new VirtualServer(id, members, prefixes, virtual.toolSearch(), version, terms);
	}

	/**
	 * Whether a virtual server's settings {@code is} are {@code was}, but for its {@code members} and {@code prefix}
	 * entries of servers the reload {@code removed} (which leave the virtual server with them: its sessions serve its
	 * other members on).
	 */
	private static boolean sameSettings(VirtualServerProperties was, VirtualServerProperties is, Set<String> removed) {
		if (was == null || was.equals(is) || removed.isEmpty()) {
			return was != null && was.equals(is);
		}
		Map<String, String> prefix = new LinkedHashMap<>(was.prefix());
		prefix.keySet().removeAll(removed);
		return new VirtualServerProperties(was.members().stream().filter(member -> !removed.contains(member)).toList(),
				was.toolPrefix(), prefix, was.toolSearch()).equals(is);
	}

	/** The virtual server {@code id} of {@code snapshot}, or {@code null}. */
	public VirtualServer find(ConfigurationSnapshot snapshot, String id) {
		return id == null ? null : of(snapshot).get(id);
	}

}
