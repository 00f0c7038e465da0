package dev.mcprelay.interceptors;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.stereotype.Component;

import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.policy.Policies;
import dev.mcprelay.policy.PolicyCompiler;
import dev.mcprelay.policy.PublishedCatalogues;

/**
 * Where the policy interceptor ({@link PolicyEnforcement}) has work in each configuration snapshot: at which servers
 * and stages it joins the chains, and, the part this compiles, the servers whose published tools and prompts the
 * policies keep ({@link PublishedCatalogues}): those a governing policy reads the tool or the prompt a request names
 * on, directly or through a virtual server. Only there are the lists sent noted; a server's {@code list_changed} is
 * heard by the relay on every stream, whatever governs it ({@code ListChangedWatch}).
 */
@Component
public class PolicyScope implements SnapshotPart<Set<String>> {

	private final PolicyCompiler compiler;

	private final PublishedCatalogues catalogues;

	public PolicyScope(PolicyCompiler compiler, PublishedCatalogues catalogues) {
		this.compiler = compiler;
		this.catalogues = catalogues;
	}

	/** The catalogues the policies of every snapshot keep. */
	PublishedCatalogues catalogues() {
		return catalogues;
	}

	/** The policies of each snapshot. */
	PolicyCompiler compiler() {
		return compiler;
	}

	/**
	 * A server some policy of the snapshot governs (naming it, {@code *}, or a virtual server it is a member of); at the
	 * list requests, only where its catalogues are kept ({@link #compile}); at the server notifications, only where the
	 * policies may hide a resource from some caller ({@link Policies#mayHideResources}). A server no policy
	 * governs has no policy interceptor in that snapshot, and gets it from the first request of a snapshot that governs
	 * it.
	 */
	boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		Policies policies = compilation.part(compiler);
		List<String> through = throughOf(compilation.properties(), server);
		if (through.stream().noneMatch(virtual -> policies.governs(server, virtual))) {
			return false;
		}
		boolean catalogued = compilation.part(this).contains(server);
		if (stage == Stage.TOOLS_LIST_REQUEST || stage == Stage.PROMPTS_LIST_REQUEST) {
			return catalogued;
		}
		if (stage == Stage.SERVER_NOTIFICATION) {
			return through.stream().anyMatch(virtual -> policies.mayHideResources(server, virtual));
		}
		return true;
	}

	@Override
	public String partName() {
		return "policy catalogues";
	}

	/** The servers whose published tools and prompts the policies of the snapshot keep. */
	@Override
	public Set<String> compile(SnapshotCompilation compilation) {
		Policies policies = compilation.part(compiler);
		Set<String> catalogued = new HashSet<>();
		for (String server : compilation.properties().servers().keySet()) {
			if (throughOf(compilation.properties(), server).stream()
				.anyMatch(virtual -> policies.readsTool(server, virtual) || policies.readsPrompt(server, virtual))) {
				catalogued.add(server);
			}
		}
		return Set.copyOf(catalogued);
	}

	/**
	 * A server whose catalogues the new snapshot starts or stops keeping: what was kept of them is forgotten (and a
	 * listing under way not kept), since no {@code list_changed} was heard for them while they were not kept.
	 */
	@Override
	public void replaced(Set<String> previous, Set<String> next) {
		Set<String> changed = new HashSet<>(previous);
		changed.addAll(next);
		changed.removeIf(server -> previous.contains(server) == next.contains(server));
		changed.forEach(server -> {
			catalogues.changed(server, PolicyLists.TOOLS);
			catalogues.changed(server, PolicyLists.PROMPTS);
		});
	}

	/** How a message may reach {@code server}: directly ({@code null}) and through each virtual server it is in. */
	private static List<String> throughOf(RelayProperties properties, String server) {
		List<String> through = new ArrayList<>();
		through.add(null);
		properties.virtualServers().forEach((id, virtual) -> {
			if (virtual != null && (virtual.members().contains(server) || virtual.members().contains("*"))) {
				through.add(id);
			}
		});
		return through;
	}

}
