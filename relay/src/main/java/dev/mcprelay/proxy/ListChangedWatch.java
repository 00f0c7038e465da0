package dev.mcprelay.proxy;

import java.util.List;

import org.springframework.stereotype.Component;

import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.bridge.UnrelayedListChanges;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcScanner;
import dev.mcprelay.jsonrpc.JsonWord;
import dev.mcprelay.sse.SseEvent;

/**
 * Hears each {@code list_changed} a server sends on any stream the relay relays, in the relay's own path rather than in
 * a chain (a stream keeps the chain of the snapshot it began on, which may hold no interceptor that listens), and tells
 * every {@link ServerListChanges}: a policy a reload adds later decides calls from what the server publishes after the
 * change, never from a catalogue kept before it. The one listener of the relay: what keeps a copy of a server's lists
 * hears its changes here and nowhere else, once per notification.
 *
 * <p>An event stream's event is looked at as bytes first ({@link JsonWord}): one whose bytes can spell no
 * {@code list_changed} in any JSON string (neither the word as it is nor an escape of one of its characters, such as
 * <code>list&#92;u005fchanged</code>) costs a scan of its bytes and nothing else; one that may is parsed, and only a
 * notification whose method, decoded, is a list's {@code list_changed} is heard (a tool result quoting the words is
 * not). An event that does not parse is left to the stream's stages, which end the stream for it. A JSON answer's
 * messages, parsed already, are heard as they are ({@link #heardIn}). A list change the version bridge takes from a
 * server and relays to no client (one a 2026-07-28 client's {@code subscriptions/listen} did not ask for) is heard
 * from the bridge ({@link #heard(String, String)}, an {@link UnrelayedListChanges}): every {@code list_changed} the
 * relay relays or consumes passes here, whatever the transport or bridge.
 */
@Component
class ListChangedWatch implements UnrelayedListChanges {

	/** What every method heard here holds, in any JSON spelling. */
	private static final JsonWord MARK = JsonWord.of("list_changed");

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
			if (event.isMessage() && MARK.mayBeIn(event.raw())) {
				heard(server, event.dataBytes());
			}
		}
	}

	/**
	 * Tells the listeners of each list of {@code server} that a notification of {@code messages}, the messages of a
	 * JSON answer as the relay parsed them, says changed.
	 */
	void heardIn(String server, List<JsonRpcMessage> messages) {
		for (JsonRpcMessage message : messages) {
			if (message.kind() == JsonRpcMessage.Kind.NOTIFICATION) {
				heard(server, String.valueOf(message.method()));
			}
		}
	}

	/**
	 * Tells the listeners of the list a notification {@code method} of {@code server} (decoded) says changed; a method
	 * that is no list's {@code list_changed} they keep is not heard.
	 */
	@Override
	public void heard(String server, String method) {
		String list = switch (method) {
			case "notifications/tools/list_changed" -> "tools/list";
			case "notifications/prompts/list_changed" -> "prompts/list";
			default -> null;
		};
		if (list != null) {
			listeners.forEach(listener -> listener.changed(server, list));
		}
	}

	private void heard(String server, byte[] data) {
		try {
			heardIn(server, JsonRpcScanner.scan(data).messages());
		}
		catch (JsonRpcParseException ex) {
			// left to the stream's stages
		}
	}

}
