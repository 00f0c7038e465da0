package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.interceptors.toolsearch.KeptCatalogues;
import dev.mcprelay.interceptors.toolsearch.ToolIndex;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.policy.UpstreamView;
import dev.mcprelay.route.VirtualMembers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The merged catalogue a virtual server's tool search ranks ({@link VirtualToolSearch}): the prefixed tools of every
 * member the caller may use, each member's whole list as the member publishes it to the caller's view
 * ({@link VirtualMembers#catalogue()}: never after the caller's policies), read as a server's tool search reads its own
 * ({@link MemberCatalogues}: one listing per view of a member at a time, bounded among the member's listings, a list
 * cut short refused, never searched as whole), merged in configuration order (a name two members publish stays with the
 * earlier, {@link NameClashes}), indexed off the event loops (BM25, {@link ToolIndex}) and kept per virtual server
 * and version of its settings ({@link VirtualServerVersion}: dropped when a reload removes or changes it), set of usable
 * members and each member's {@link UpstreamView} of the caller (its caller and configured headers) for
 * {@link #CATALOGUE_AGE} (under the one bound in bytes of every catalogue tool search keeps, {@link KeptCatalogues},
 * each weighing its tools' JSON), and dropped when a member says its tools changed;
 * one that lacks a member that could not be asked is not kept (the client is warned, and the next search asks the
 * member again). Which of its tools a request may use is decided per request ({@link Catalogue#usableBy}).
 */
@Component
class VirtualToolCatalogues {

	/** How long a merged catalogue is kept without a member's {@code list_changed}. */
	static final Duration CATALOGUE_AGE = Duration.ofMinutes(5);

	/** What marks a member's view in a catalogue's key, apart from the members (no member id has a line feed). */
	private static final String VIEW = "\nview:";

	/** Where one merged catalogue is kept among every catalogue tool search keeps: its virtual server, members, views. */
	private record Merged(List<String> key) {
	}

	private final KeptCatalogues catalogues;

	private final MemberCatalogues members;

	private final NameClashes clashes;

	private final MemberAvailability availability;

	private final MemberViews views;

	private final MemberListPolicies policies;

	private final MembersUsableNow usableNow;

	VirtualToolCatalogues(MemberCatalogues members, NameClashes clashes, VirtualServers servers,
			ListCache listCache, MemberAvailability availability, MemberViews views, MemberListPolicies policies,
			KeptCatalogues catalogues, MembersUsableNow usableNow) {
		this.usableNow = usableNow;
		this.catalogues = catalogues;
		this.members = members;
		this.clashes = clashes;
		this.availability = availability;
		this.views = views;
		this.policies = policies;
		listCache.onChange((member, method) -> {
			if (method == null || method.equals("tools/list")) {
				invalidate(member);
			}
		});
		// a version of a virtual server a reload removed or changed is searched no more (the index's classes are loaded
		// as a version that searches is compiled: VirtualServers)
		servers.onRetired(this::retired);
	}

	/** A merged catalogue, and the warnings about the members it lacks (they could not be asked). */
	record Catalogue(Kept kept, List<ObjectNode> warnings, MemberListPolicies policies) {

		ToolIndex index() {
			return kept.index();
		}

		/**
		 * Which of the catalogue's tools the request of {@code call} may use: each decided by the policies of its
		 * member and the virtual server on the request's facts, as the call that would use it (arguments unknown).
		 */
		Predicate<ObjectNode> usableBy(VirtualCall call) {
			Map<String, MemberListPolicies.Decision> byMember = new HashMap<>();
			return tool -> {
				Owner owner = kept.owners().get(ToolIndex.name(tool));
				if (owner == null) {
					return false;
				}
				return byMember.computeIfAbsent(owner.member(), member -> policies.of(call, member, "tools/list"))
					.lists(owner.name(), tool);
			};
		}

	}

	/** The member that published a merged tool, and its name there. */
	private record Owner(String member, String name) {
	}

	/** An index, the member and name of each tool it holds, and its JSON size; kept {@link #CATALOGUE_AGE}. */
	record Kept(ToolIndex index, Map<String, Owner> owners, long bytes) implements KeptCatalogues.Kept {

		@Override
		public Duration lifetime() {
			return CATALOGUE_AGE;
		}

	}

	/** Drops the merged catalogues {@code member}'s tools are in: its tools changed. */
	void invalidate(String member) {
		catalogues.invalidateIf(key -> key instanceof Merged merged
				&& merged.key().subList(2, merged.key().size()).contains(member));
	}

	/** Drops the merged catalogues of {@code server}'s version, which a reload removed or changed. */
	private void retired(VirtualServer server) {
		String version = version(server);
		catalogues.invalidateIf(key -> key instanceof Merged merged && merged.key().get(1).equals(version));
	}

	/** What names {@code server}'s version in a catalogue's key (no member id has a line feed). */
	private static String version(VirtualServer server) {
		return "\nversion:" + server.version().serial();
	}

	/**
	 * The merged, prefixed catalogue of the members this caller may use, indexed off the event loops. Kept only when
	 * every member answered: a catalogue that lacks one is used once, with a warning naming the member, and the next
	 * search asks that member again. The members are those the caller may use when the search is answered
	 * ({@link MembersUsableNow}): one a reload withdrew from the caller, or removed, since the request's admission is
	 * left out, with a warning, whatever is kept of it. Fails with the refusal a member's listing made
	 * ({@link MemberCatalogues#tools}).
	 */
	Mono<Catalogue> catalogue(VirtualCall call) {
		// the members the caller may use now: one a reload withdrew from it, or removed, since the request's admission
		// is left out (a warning names it), whatever catalogue is kept
		List<ObjectNode> lost = new CopyOnWriteArrayList<>();
		return Flux.fromIterable(call.usable())
			.concatMap(member -> usableNow.check(call, member).thenReturn(member)
				.onErrorResume(MemberUnavailable.class, failure -> {
					lost.add(availability.unavailable(call.server().id(), failure));
					return Mono.empty();
				}))
			.collectList()
			.flatMap(usable -> catalogue(call, usable, lost));
	}

	private Mono<Catalogue> catalogue(VirtualCall call, List<String> usable, List<ObjectNode> lost) {
		List<String> key = new ArrayList<>();
		key.add(call.server().id());
		// prefixed by that version's settings: a version a reload made later is another catalogue
		key.add(version(call.server()));
		key.addAll(usable);
		// each member's whole list as it publishes it to this caller's view of it: the same for every request of the
		// view (ListCache's pages are kept so too)
		usable.forEach(member -> key.add(VIEW + views.of(call, member).digest()));
		Kept kept = catalogues.getIfPresent(new Merged(key));
		if (kept != null) {
			return Mono.just(new Catalogue(kept, List.copyOf(lost), policies));
		}
		List<ObjectNode> warnings = new CopyOnWriteArrayList<>();
		return Flux.fromIterable(usable)
			.flatMapSequential(member -> members.tools(call, member)
				.map(tools -> Map.entry(member, tools))
				.onErrorResume(MemberUnavailable.class, failure -> {
					warnings.add(availability.unavailable(call.server().id(), failure));
					return Mono.empty();
				}))
			.collectList()
			.flatMap(perMember -> Mono.fromCallable(() -> index(call, perMember)).subscribeOn(Schedulers.parallel()))
			.map(built -> {
				if (warnings.isEmpty()) {
					catalogues.put(new Merged(key), built);
				}
				List<ObjectNode> told = new ArrayList<>(lost);
				told.addAll(warnings);
				return new Catalogue(built, List.copyOf(told), policies);
			});
	}

	private Kept index(VirtualCall call, List<Map.Entry<String, List<ObjectNode>>> perMember) {
		Map<String, ObjectNode> merged = new LinkedHashMap<>();
		Map<String, Owner> owners = new HashMap<>();
		long bytes = 0;
		for (Map.Entry<String, List<ObjectNode>> member : perMember) {
			for (ObjectNode node : member.getValue()) {
				String name = call.server().exposedName(member.getKey(), node.path("name").asText());
				if (ToolSearchPolicy.SEARCH_TOOL.equals(name)) {
					continue;
				}
				if (owners.putIfAbsent(name, new Owner(member.getKey(), node.path("name").asText())) != null) {
					clashes.report(call.server().id(), "tools", name, owners.get(name).member(), member.getKey());
					continue;
				}
				ObjectNode renamed = node.deepCopy().put("name", name);
				bytes += JsonRpcErrors.toBytes(renamed).length;
				// kept as the member sent it (renamed), every field
				merged.put(name, renamed);
			}
		}
		return new Kept(new ToolIndex(List.copyOf(merged.values())), Map.copyOf(owners), bytes);
	}

}
