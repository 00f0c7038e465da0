package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import dev.mcprelay.sse.SseEvent;
import dev.mcprelay.sse.SseEventSplitter;

/**
 * The relay hears a server's {@code list_changed} however the server spells its method in JSON (cold review L,
 * finding 1: <code>"notifications/tools/list&#92;u005fchanged"</code>, legal JSON for the same string, passed the byte
 * check unheard, and a call was decided from the annotations the change made stale), once per notification, and
 * nothing that only quotes the words.
 */
class ListChangedWatchTest {

	private final List<String> heard = new ArrayList<>();

	private final ListChangedWatch watch = new ListChangedWatch(
			List.of((server, list) -> heard.add(server + " " + list)));

	@Test
	void aListChangedIsHeardInEveryJsonSpellingOfItsMethod() {
		for (String method : List.of("notifications/tools/list_changed", "notifications/tools/list\\u005fchanged",
				"notifications/tools/list\\u005Fchanged", "notifications/tools/\\u006cist_changed",
				"notifications\\/tools\\/list_changed", "notifications/tools/list_c\\u0068anged",
				"\\u006eotifications/tools/lis\\u0074\\u005f\\u0063hanged")) {
			heard.clear();
			watch.heard("alpha", events("data: {\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\"}\n\n"));
			assertThat(heard).as(method).containsExactly("alpha tools/list");
		}
		heard.clear();
		watch.heard("alpha",
				events("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list\\u005fchanged\"}\n\n"));
		assertThat(heard).containsExactly("alpha prompts/list");
	}

	@Test
	void eachNotificationIsHeardOnceAndWhatOnlyQuotesItIsNot() {
		watch.heard("alpha", events("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
				+ ": ping\n\n"
				+ "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
				+ "\"text\":\"notifications/tools/list\\u005fchanged\"}]}}\n\n"
				+ "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":"
				+ "\"notifications/tools/list_changed\"}}\n\n"
				+ "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed_too\"}\n\n"
				+ "data: [{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\"},"
				+ "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list\\u005fchanged\"}]\n\n"));
		assertThat(heard).containsExactly("alpha tools/list", "alpha prompts/list", "alpha tools/list");
	}

	private static List<SseEvent> events(String stream) {
		byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
		return new SseEventSplitter(bytes.length).split(DefaultDataBufferFactory.sharedInstance.wrap(bytes));
	}

}
