package dev.mcprelay.virtual;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;

/**
 * A call went to a member before the member's stream was open, and the member then answered its GET with its headers
 * alone ({@link MergedStreams#answeredAlone}): it had no stream when the call came, so a request it sent the client
 * during the call (sampling, elicitation) was dropped at the member, and the call may wait for ever for the answer to
 * it. The call still waiting for the member then is ended: the member's exchange cancelled, the client answered
 * with {@link #error}, which tells it to call again (its stream is open now).
 */
final class MemberHadNoStream extends RuntimeException {

	/** {@code error.data.reason} of the client's error, and the reason the call is counted under. */
	static final String REASON = UndeliveredMessages.STREAM_NOT_OPEN;

	private final String member;

	MemberHadNoStream(String member) {
		super("Member '" + member + "' had no stream open when this call reached it (it opened it only after the relay "
				+ "stopped waiting for it), so a request it sent the client during the call was lost; call again.",
				null, false, false);
		this.member = member;
	}

	String member() {
		return member;
	}

	/** The client's error for the call {@code id}, naming the member. */
	ObjectNode error(JsonNode id) {
		return JsonRpcErrors.error(id, JsonRpcErrorCodes.INTERNAL_ERROR, getMessage(),
				Map.of("reason", REASON, "member", member));
	}

}
