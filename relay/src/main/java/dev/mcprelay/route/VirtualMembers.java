package dev.mcprelay.route;

import java.util.List;

/**
 * The members of a virtual server one caller may use, decided once by the front door from the request's routing
 * decision and the caller's credential, and recorded on the exchange for the virtual server to read: a member not in
 * {@link #members()} is neither listed nor reachable for this request. A virtual server's message to a member
 * carries it too, so that every stage knows the virtual server it came through.
 *
 * @param virtualServer the virtual server's id
 * @param members the usable members, in the virtual server's configuration order
 * @param catalogue whether the message is the virtual server's own listing of a member for a catalogue it keeps
 * (tool search's): the member's relay answers the list as the member published it to the caller's view, unfiltered by
 * the caller's policies, and the virtual server decides what it answers from it for each request; only the virtual
 * server sets it, never a client
 */
public record VirtualMembers(String virtualServer, List<String> members, boolean catalogue) {

	/**
	 * The attribute ({@code CallContext.attributes()}) that marks a member's request as {@link #catalogue()}: the
	 * policies record its list as published and leave it whole.
	 */
	public static final String CATALOGUE_LISTING = VirtualMembers.class.getName() + ".catalogue";

	public VirtualMembers {
		members = List.copyOf(members);
	}

	public VirtualMembers(String virtualServer, List<String> members) {
		this(virtualServer, members, false);
	}

	/** The same members, for the virtual server's own listing of a catalogue ({@link #catalogue()}). */
	public VirtualMembers forCatalogue() {
		return new VirtualMembers(virtualServer, members, true);
	}

}
