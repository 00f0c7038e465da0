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
 */
public record VirtualMembers(String virtualServer, List<String> members) {

	public VirtualMembers {
		members = List.copyOf(members);
	}

}
