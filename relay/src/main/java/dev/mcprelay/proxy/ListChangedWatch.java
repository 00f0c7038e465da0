package dev.mcprelay.proxy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.stereotype.Component;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.sse.SseEvent;

/**
 * Hears each {@code list_changed} a server sends on any stream the relay relays, in the relay's own path rather than in
 * a chain (a stream keeps the chain of the snapshot it began on, which may hold no interceptor that listens), and tells
 * every {@link ServerListChanges}: a policy a reload adds later decides calls from what the server publishes after the
 * change, never from a catalogue kept before it. An event is looked at as bytes first: one that does not hold
 * {@code list_changed} costs a scan of its bytes and nothing else; one that does is parsed, and only a notification
 * whose method is a list's {@code list_changed} is heard (a tool result quoting the words is not). An event that does
 * not parse is left to the stream's stages, which end the stream for it.
 */
@Component
class ListChangedWatch {

	private static final byte[] MARK = "list_changed".getBytes(StandardCharsets.US_ASCII);

	private final List<ServerListChanges> listeners;

	ListChangedWatch(List<ServerListChanges> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/** Tells the listeners of each list of {@code server} that a message of {@code events} says changed. */
	void heard(String server, List<SseEvent> events) {
		if (listeners.isEmpty()) {
			return;
		}
		for (SseEvent event : events) {
			if (event.isMessage() && contains(event.raw(), MARK)) {
				heard(server, event.dataBytes());
			}
		}
	}

	private void heard(String server, byte[] data) {
		List<JsonRpcMessage> messages;
		try {
			messages = JsonRpcScanner.scan(data).messages();
		}
		catch (JsonRpcParseException ex) {
			return;
		}
		for (JsonRpcMessage message : messages) {
			if (message.kind() != JsonRpcMessage.Kind.NOTIFICATION) {
				continue;
			}
			String list = switch (String.valueOf(message.method())) {
				case "notifications/tools/list_changed" -> "tools/list";
				case "notifications/prompts/list_changed" -> "prompts/list";
				default -> null;
			};
			if (list != null) {
				listeners.forEach(listener -> listener.changed(server, list));
			}
		}
	}

	/** Whether {@code bytes} holds {@code mark} anywhere. */
	static boolean contains(byte[] bytes, byte[] mark) {
		byte first = mark[0];
		for (int at = 0, last = bytes.length - mark.length; at <= last; at++) {
			if (bytes[at] != first) {
				continue;
			}
			int matched = 1;
			while (matched < mark.length && bytes[at + matched] == mark[matched]) {
				matched++;
			}
			if (matched == mark.length) {
				return true;
			}
		}
		return false;
	}

}
