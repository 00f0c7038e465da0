package dev.mcprelay.proxy;

import dev.mcprelay.jsonrpc.HeapBudget;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.util.context.ContextView;

/**
 * What parsing a client's body costs the memory budget for bodies ({@link BufferedBodies}), beyond its bytes: the JSON
 * tree {@link JsonRpcParser#parseClientBody(byte[], HeapBudget)} builds from it, charged to the request's lease before
 * each part is made, and held, as the bytes are, until the request's exchange ends.
 *
 * <p>The tree is charged first to the room {@link BoundedBody#read} counted beside the body's bytes (as much again),
 * which covers a body of strings; what the tree takes beyond it is taken from the budget as it is built, and what it
 * leaves of the room is given back once it is built. A tree can take many times its text (an empty object some 80
 * bytes for 3 of text; see {@code WeighingParser}), so a body that fits its {@code max-buffered-body} may still be
 * refused: 503 {@code relay_overloaded} when what others hold leaves no room for it now, 413
 * {@code request_too_large} when its bytes and its tree could never fit what one request may hold. One per body, used
 * on the parsing thread only.
 */
public final class BodyCharge implements HeapBudget {

	private final BufferedBodies.Lease lease;

	private final String server;

	/** What this body holds of the lease: its bytes, the room counted beside them, and the tree's cost past it. */
	private long held;

	/** What is left of the room counted beside the bytes. */
	private long room;

	private BodyCharge(BufferedBodies.Lease lease, String server, long bytes) {
		this.lease = lease;
		this.server = server;
		this.held = 2 * bytes;
		this.room = bytes;
	}

	/**
	 * A client's body to {@code server}, read by {@link BoundedBody#read} within the lease of {@code context}, parsed
	 * ({@link JsonRpcParser#parseClientBody(byte[], HeapBudget)}) with its tree charged to that lease; parsed
	 * uncharged outside a client's request.
	 *
	 * @throws RelayFailure {@code relay_overloaded} or {@code request_too_large} when the budget has no room for the
	 * tree
	 */
	public static JsonRpcPayload parse(ContextView context, byte[] body, String server) throws JsonRpcParseException {
		BufferedBodies.Lease lease = BufferedBodies.leaseOf(context);
		if (lease == null) {
			return JsonRpcParser.parseClientBody(body);
		}
		BodyCharge charge = new BodyCharge(lease, server, body.length);
		JsonRpcPayload payload = JsonRpcParser.parseClientBody(body, charge);
		charge.built();
		return payload;
	}

	@Override
	public void take(long bytes) {
		long fromRoom = Math.min(room, bytes);
		room -= fromRoom;
		long rest = bytes - fromRoom;
		if (rest > 0 && !lease.take(rest)) {
			long ceiling = lease.ceiling();
			room += fromRoom;
			throw held + rest > ceiling ? RelayFailures.requestTooHeavy(server, held + rest, ceiling)
					: RelayFailures.relayOverloaded();
		}
		held += rest;
	}

	@Override
	public void give(long bytes) {
		// back to the room: held until the tree is built, then given back with what is left of it
		room += bytes;
	}

	/** The tree is built: what it left of the room goes back to the budget. */
	private void built() {
		if (room > 0) {
			lease.give(room);
			held -= room;
			room = 0;
		}
	}

}
