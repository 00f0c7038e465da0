package dev.mcprelay.virtual;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.springframework.core.io.buffer.DataBufferUtils;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonText;
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

	/**
	 * Every message of the answer; nothing for a body that is neither JSON nor an event stream, nor for a body or
	 * event that is no UTF-8 JSON text ({@link JsonText}, the check every body meets before it is parsed). An answer
	 * with a status other than 2xx gives no result: the member's relay hands such an answer on as it came, without its
	 * response or list stage (DESIGN section 6), so a result in it met none of the member's policies (a tool its
	 * {@code tools.deny} hides would be listed); its errors are kept, to be told as the member's.
	 */
	static Mono<List<ObjectNode>> all(MemberAnswer answer) {
		boolean succeeded = answer.status().is2xxSuccessful();
		Mono<List<ObjectNode>> messages;
		if (answer.isEventStream()) {
			messages = events(answer).filter(SseEvent::isMessage)
				.<ObjectNode>handle((event, sink) -> {
					ObjectNode message = parse(event.dataBytes());
					if (message != null) {
						sink.next(message);
					}
				})
				.collectList();
		}
		else if (!answer.isJson()) {
			return answer.discard().thenReturn(List.of());
		}
		else {
			messages = answer.bytes(MAX_BYTES).map(MemberMessages::messagesOf);
		}
		return succeeded ? messages
				: messages.map(all -> all.stream().filter(message -> !message.has("result")).toList());
	}

	/** The JSON-RPC messages of a JSON body (one, or a batch's); none for a body that is no UTF-8 JSON text. */
	private static List<ObjectNode> messagesOf(byte[] bytes) {
		List<ObjectNode> messages = new ArrayList<>();
		JsonNode body = tree(bytes);
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
		return messages;
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

	/** A JSON object in UTF-8 JSON text ({@link JsonText}), or {@code null} for anything else. */
	static ObjectNode parse(byte[] bytes) {
		return tree(bytes) instanceof ObjectNode object ? object : null;
	}

	/**
	 * The JSON of a member's body or event data, or {@code null} when it is none: a body that is no UTF-8 JSON text
	 * is never parsed, as the relay parses no client's or upstream's body before {@link JsonText} has passed it
	 * (Jackson would read UTF-16 where the member's relay, and a client, read other text).
	 */
	private static JsonNode tree(byte[] bytes) {
		if (!JsonText.isUtf8(bytes, 0, bytes.length)) {
			return null;
		}
		try {
			return JsonRpcParser.mapper().readTree(bytes);
		}
		catch (IOException ex) {
			return null;
		}
	}

}
