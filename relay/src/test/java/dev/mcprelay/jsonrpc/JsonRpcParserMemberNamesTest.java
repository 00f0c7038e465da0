package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.jsonrpc.JsonRpcJson;

/**
 * The member names of a body the relay parses (a client's, an upstream's) live no longer than the body's tree: Jackson
 * by default keeps every name it reads in its factory's table (up to 6,000 of them, of any length) and interns it, so
 * 900 unique names of 50,000 characters, one request, stayed on the heap as 140 MB after the request was answered, and
 * three such requests ended a 400 MB heap. The names of small bodies may be shared, a bounded few.
 */
class JsonRpcParserMemberNamesTest {

	@Test
	void theNamesOfManySmallBodiesAreNotKeptEither() throws Exception {
		List<WeakReference<String>> first = null;
		for (int round = 0; round < 100; round++) {
			StringBuilder arguments = new StringBuilder("{");
			for (int i = 0; i < 10; i++) {
				arguments.append(i == 0 ? "" : ",").append("\"small-").append(round).append('-').append(i).append('-')
					.append("y".repeat(300)).append("\":0");
			}
			byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
					+ "\"arguments\":" + arguments + "}}}").getBytes(StandardCharsets.UTF_8);
			assertThat(body.length).as("a small body, whose parser shares its table of names").isLessThan(4096);
			JsonRpcPayload payload = JsonRpcParser.parseClientBody(body, HeapBudget.NONE);
			if (first == null) {
				first = namesOf(payload.first().node().get("params").get("arguments"), 10);
			}
		}
		assertGone(first);
	}

	@Test
	void aClientBodysMemberNamesAreGoneOnceItsTreeIs() throws Exception {
		List<WeakReference<String>> names = new ArrayList<>();
		for (int round = 0; round < 3; round++) {
			JsonRpcPayload payload = JsonRpcParser.parseClientBody(body("client-" + round), HeapBudget.NONE);
			names.addAll(namesOf(payload.first().node().get("params").get("arguments"), 20));
		}
		assertGone(names);
	}

	@Test
	void anUpstreamAnswersMemberNamesAreGoneOnceItsTreeIs() throws Exception {
		List<WeakReference<String>> names = new ArrayList<>();
		for (int round = 0; round < 3; round++) {
			byte[] answer = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":" + members("upstream-" + round)
					+ "}}").getBytes(StandardCharsets.UTF_8);
			JsonRpcPayload payload = JsonRpcParser.parse(answer);
			names.addAll(namesOf(payload.first().node().get("result").get("structuredContent"), 20));
		}
		assertGone(names);
	}

	/** A tools/call whose arguments have unique member names, long enough that keeping them is seen. */
	private static byte[] body(String prefix) {
		return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
				+ members(prefix) + "}}").getBytes(StandardCharsets.UTF_8);
	}

	private static String members(String prefix) {
		StringBuilder json = new StringBuilder("{");
		for (int i = 0; i < 20; i++) {
			json.append(i == 0 ? "" : ",").append('"').append(prefix).append('-').append(i).append('-')
				.append("x".repeat(2000)).append("\":0");
		}
		return json.append('}').toString();
	}

	private static List<WeakReference<String>> namesOf(JsonNode object, int count) {
		List<WeakReference<String>> names = new ArrayList<>();
		for (Iterator<String> it = object.fieldNames(); it.hasNext();) {
			names.add(new WeakReference<>(it.next()));
		}
		assertThat(names).hasSize(count);
		return names;
	}

	/**
	 * Every name collected once nothing of the relay's holds it: a full collection clears a weak reference to an object
	 * no longer strongly reachable; one still reachable (from Jackson's table) is never cleared, however many run.
	 */
	private static void assertGone(List<WeakReference<String>> names) {
		for (int i = 0; i < 5 && names.stream().anyMatch(name -> name.get() != null); i++) {
			System.gc();
		}
		assertThat(names.stream().filter(name -> name.get() != null).count()).as("member names still on the heap")
			.isZero();
	}

}
