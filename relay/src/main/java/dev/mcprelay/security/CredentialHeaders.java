package dev.mcprelay.security;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.springframework.stereotype.Component;

import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.InjectedArgumentProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * The headers that carry a caller's credential for the relay itself ({@code Authorization}, {@code X-Api-Key}), and
 * who may see them. They belong to the relay alone: the header rules never forward either upstream, in any mode (the
 * MCP authorization rules forbid token passthrough). In {@code api-key} and {@code jwt} mode they are also hidden from
 * interceptors ({@code CallContext.headers()}), except a header a server's configuration copies by name
 * ({@code headers[n].from-request-header}, {@code arguments.inject[n].from-request-header}): an operator who names the
 * header for that server means it to cross. In mode {@code none} the relay reads no credential, so interceptors see
 * both (a policy of the operator's own may check them). Which headers a server's interceptors see is a part of each
 * configuration snapshot, read from the request's.
 */
@Component
public class CredentialHeaders implements SnapshotPart<Map<String, Set<String>>> {

	/** The headers the front door reads a credential from. */
	public static final List<String> NAMES = List.of("Authorization", "X-Api-Key");

	@Override
	public String partName() {
		return "credential headers";
	}

	/** Each server's hidden headers, from the snapshot's own servers (a server a reload added hides them too). */
	@Override
	public Map<String, Set<String>> compile(SnapshotCompilation compilation) {
		return hiddenByServer(compilation.properties());
	}

	/** Each server of {@code properties}' hidden headers, by id. */
	public static Map<String, Set<String>> hiddenByServer(RelayProperties properties) {
		boolean secured = properties.security().mode() != SecurityMode.NONE;
		return properties.servers()
			.entrySet()
			.stream()
			.filter(entry -> entry.getValue() != null)
			.collect(Collectors.toUnmodifiableMap(Map.Entry::getKey,
					entry -> secured ? hidden(entry.getValue()) : Set.of()));
	}

	/**
	 * The inbound headers interceptors of server {@code serverId} do not see in {@code snapshot}, the request's, their
	 * names in lower case; empty when they see every header.
	 */
	public Set<String> hiddenFrom(ConfigurationSnapshot snapshot, String serverId) {
		return of(snapshot).getOrDefault(serverId, Set.of());
	}

	private static Set<String> hidden(ServerProperties server) {
		Set<String> hidden = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
		hidden.addAll(NAMES);
		server.headers().stream().map(HeaderProperties::fromRequestHeader).filter(name -> name != null)
			.forEach(hidden::remove);
		server.arguments().inject().stream().map(InjectedArgumentProperties::fromRequestHeader)
			.filter(name -> name != null)
			.forEach(hidden::remove);
		// in lower case and unmodifiable, as CallContext keeps them: a request's context takes the set as it is
		return hidden.stream().map(name -> name.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
	}

}
