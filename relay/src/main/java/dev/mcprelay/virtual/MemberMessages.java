package dev.mcprelay.virtual;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.springframework.core.io.buffer.DataBufferUtils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads what a member answered, as JSON-RPC messages: a JSON body's message (or batch), or each message event of an
 * event stream, in order. For the messages the virtual server answers itself from its members' answers
 * ({@code initialize}, the lists); what it relays as it comes goes through {@link #events} instead.
 */
final class MemberMessages {

	/** The largest event or JSON body read from a member answer. */
	static final int MAX_BYTES = 50 * 1024 * 1024;

	private MemberMessages() {
	}

	/** Every message of the answer; nothing for a body that is neither JSON nor an event stream. */
	static Mono<List<ObjectNode>> all(MemberAnswer answer) {
		if (answer.isEventStream()) {
			return events(answer).filter(SseEvent::isMessage)
				.<ObjectNode>handle((event, sink) -> {
					ObjectNode message = parse(event.dataBytes());
					if (message != null) {
						sink.next(message);
					}
				})
				.collectList();
		}
		if (!answer.isJson()) {
			return answer.discard().thenReturn(List.of());
		}
		return answer.bytes(MAX_BYTES).map(bytes -> {
			List<ObjectNode> messages = new ArrayList<>();
			try {
				JsonNode body = JsonRpcParser.mapper().readTree(bytes);
				if (body instanceof ObjectNode object) {
					messages.add(object);
				}
				else if (body != null && body.isArray()) {
					body.forEach(element -> {
						if (element instanceof ObjectNode object) {
							messages.add(object);
						}
					});
				}
			}
			catch (IOException ex) {
				// Not JSON: no message.
			}
			return messages;
		});
	}

	/** The response among {@code messages} that answers request {@code id}, or {@code null}. */
	static ObjectNode responseTo(List<ObjectNode> messages, JsonNode id) {
		for (ObjectNode message : messages) {
			if (!message.has("method") && id.equals(message.get("id"))
					&& (message.has("result") || message.has("error"))) {
				return message;
			}
		}
		return null;
	}

	/**
	 * The events of an event-stream answer, as they arrive; every buffer released as it is read, so that none waits in
	 * a queue of this chain (where a cancellation would have to release it), and one buffer asked of the member at a
	 * time: what the consumer has not taken yet stays with the member's relay, which bounds it.
	 */
	static Flux<SseEvent> events(MemberAnswer answer) {
		return Flux.defer(() -> {
			SseEventSplitter splitter = new SseEventSplitter(MAX_BYTES);
			return answer.body().map(buffer -> {
				try {
					return splitter.split(buffer);
				}
				finally {
					DataBufferUtils.release(buffer);
				}
			}).concatMapIterable(events -> events, 1);
		});
	}

	/** A JSON object, or {@code null} for anything else. */
	static ObjectNode parse(byte[] bytes) {
		try {
			return JsonRpcParser.mapper().readTree(bytes) instanceof ObjectNode object ? object : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

}
