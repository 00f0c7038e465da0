package dev.mcprelay.virtual;

import java.util.List;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.policy.PolicyCompiler;
import dev.mcprelay.policy.PolicyFacts;
import dev.mcprelay.policy.PolicyListing;
import dev.mcprelay.policy.PublishedCatalogues;
import dev.mcprelay.policy.RelayOwnTools;
import dev.mcprelay.proxy.SpringRequestHeaders;

/**
 * What one request to a virtual server may use of a member's whole list: each item decided by the policies that govern
 * the member through the virtual server (and the member's {@code tools} lists), on the request's own facts (its caller
 * with the token's scopes and claims, its headers), as the request that would use it with its arguments not yet known,
 * exactly as the member's relay decides a list it answers a caller ({@link PolicyListing}: what the items share worked
 * out once). Tools the relay offers itself on the member ({@link RelayOwnTools}) are kept, as the member's relay keeps
 * them.
 *
 * <p>Whatever a virtual server keeps of a member's lists beyond one request (pages for clients without sessions,
 * {@link ListCache}; the names it routes by, {@link PublishedNames}; tool search's catalogue, {@link VirtualToolSearch})
 * is the member's whole list for a view of it, and decided here for each request it answers: two requests of one
 * caller in one view may be governed otherwise (a token with another scope, another header), and what is listed is what
 * may be called. The policies are those of the request's configuration snapshot ({@link PolicyCompiler}), so a
 * policy edit decides the next request's lists and never one already answering.
 */
@Component
class MemberListPolicies {

	private final PolicyCompiler policies;

	private final List<RelayOwnTools> relayOwn;

	MemberListPolicies(PolicyCompiler policies, List<RelayOwnTools> relayOwn) {
		this.policies = policies;
		this.relayOwn = List.copyOf(relayOwn);
	}

	/** The decision on the items of one list of one member, for one request; made per list and dropped with it. */
	interface Decision {

		/**
		 * Whether the request may use the item {@code name} names in the member's list ({@code name}: the tool's or
		 * prompt's name as the member published it, or the resource's URI or template), {@code item} its entry as the
		 * member published it (a tool's annotations are read from it).
		 */
		boolean lists(String name, JsonNode item);

	}

	/** What names {@code item} of list {@code method} as the member published it ({@link #field}), or {@code null}. */
	static String name(String method, JsonNode item) {
		JsonNode name = item.get(field(method));
		return name != null && name.isTextual() ? name.textValue() : null;
	}

	/** The field that names an entry of list {@code method}: {@code name}, {@code uri} or {@code uriTemplate}. */
	static String field(String method) {
		return switch (method) {
			case "resources/list" -> "uri";
			case "resources/templates/list" -> "uriTemplate";
			default -> "name";
		};
	}

	/** The decision on {@code member}'s list {@code method} ({@link VirtualLists#ITEMS}) for the request of {@code call}. */
	Decision of(VirtualCall call, String member, String method) {
		String use = switch (method) {
			case "tools/list" -> "tools/call";
			case "prompts/list" -> "prompts/get";
			default -> "resources/read";
		};
		PolicyFacts facts = new PolicyFacts(call.exchange().caller(), member, call.server().id(), use, false, null, null,
				null, null, null, SpringRequestHeaders.of(call.exchange().requestHeaderView()));
		PolicyListing listing = policies.of(call.exchange().configuration()).listing(facts);
		return switch (method) {
			case "tools/list" -> (name, item) -> relayOwn(call.exchange().configuration(), member, name)
					|| listing.lists(facts.forItem(name, PublishedCatalogues.annotationsOf(item), null, null));
			case "prompts/list" -> (name, item) -> listing.lists(facts.forItem(null, null, name, null));
			default -> (name, item) -> listing.lists(facts.forItem(null, null, null, name));
		};
	}

	/** Whether {@code tool} of {@code member} is the relay's own in {@code snapshot}, the request's. */
	private boolean relayOwn(ConfigurationSnapshot snapshot, String member, String tool) {
		for (RelayOwnTools own : relayOwn) {
			if (tool != null && own.isRelayOwn(snapshot, member, tool)) {
				return true;
			}
		}
		return false;
	}

}
