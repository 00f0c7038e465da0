package dev.mcprelay.bridge;

import java.util.List;

import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

import dev.mcprelay.transport.UpstreamRequest;

/**
 * Whether a 2026-07-28 client's request is shaped as every server of any generation takes a JSON-RPC POST: a
 * {@code Content-Type} of JSON and, when it names one, an {@code Accept} that takes both JSON and an event stream. A
 * server's refusal of a request shaped otherwise (a 415 for {@code text/plain}, a 406) is of the client's own making
 * and tells nothing of the generation the server speaks: {@link VersionBridge} hands it on and asks no probe (review
 * 46e, N2: one client's {@code text/plain} request made the relay probe, and learn, a server of both generations).
 * Reads headers only; never fails.
 */
final class ClientShapedRequests {

	private ClientShapedRequests() {
	}

	/** Whether {@code request}'s refusal may tell the server's generation: its media types are the protocol's. */
	static boolean wellShaped(UpstreamRequest request) {
		HttpHeaders headers = request.headers();
		try {
			String type = headers.getFirst(HttpHeaders.CONTENT_TYPE);
			if (type == null || !MediaType.APPLICATION_JSON.isCompatibleWith(MediaType.parseMediaType(type))) {
				return false;
			}
			List<String> accept = headers.get(HttpHeaders.ACCEPT);
			if (accept == null || accept.isEmpty()) {
				return true;
			}
			List<MediaType> taken = MediaType.parseMediaTypes(accept);
			return takes(taken, MediaType.APPLICATION_JSON) && takes(taken, MediaType.TEXT_EVENT_STREAM);
		}
		catch (InvalidMediaTypeException malformed) {
			return false;
		}
	}

	private static boolean takes(List<MediaType> accepted, MediaType type) {
		return accepted.stream().anyMatch(one -> one.includes(type));
	}

}
