package dev.mcprelay.virtual;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.proxy.RelayFailures;

/**
 * Where a client's notification to a virtual server goes, and as what: to every joined member as it came, but for a
 * {@code notifications/cancelled} of a member's request, which names the request by the id this virtual server gave
 * it ({@link MemberIds}): that goes to that member alone, under the member's id (whose own relay then restores the
 * server's). A cancellation naming such an id this session never gave is refused (400 {@code unknown_request_id}), as
 * an answer under it is; one of the client's own requests goes to every member (the one that holds the request ends
 * it, the others have none by that id).
 */
final class MemberNotifications {

	/**
	 * The members a notification goes to, and its body.
	 *
	 * @param sessionBound whether it names what only the member session it was meant for knows (a member's request):
	 * a member that lost that session is not sent it again in a new one
	 */
	record Delivery(List<String> members, byte[] body, boolean sessionBound) {
	}

	private MemberNotifications() {
	}

	/** Where {@code message}, a client's notification in {@code call}, goes; a refusal as a {@code RelayFailure}. */
	static Delivery of(VirtualCall call, JsonRpcMessage message, MemberIds ids) {
		JsonNode requestId = "notifications/cancelled".equals(message.method())
				? message.node().path("params").get("requestId") : null;
		if (requestId == null || !requestId.isTextual() || !requestId.textValue().startsWith(MemberIds.PREFIX)) {
			return new Delivery(call.usable(), JsonRpcErrors.toBytes(message.node()), false);
		}
		MemberIds.MemberRequestId origin = call.stateless() ? null : ids.unwrap(call.sessionId(), requestId);
		if (origin == null || !call.joined(origin.member()) || !call.usable().contains(origin.member())) {
			throw RelayFailures.unknownServerRequest(call.server().id());
		}
		ObjectNode cancellation = message.node().deepCopy();
		((ObjectNode) cancellation.get("params")).set("requestId", origin.id());
		return new Delivery(List.of(origin.member()), JsonRpcErrors.toBytes(cancellation), true);
	}

}
