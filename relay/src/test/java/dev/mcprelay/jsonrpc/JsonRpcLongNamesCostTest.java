package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

/**
 * A body of many long unique member names costs the relay work linear in its size, on every path that parses one: a
 * client's ({@link JsonRpcParser#parseClientBody(byte[])}), an upstream's ({@link JsonRpcParser#parse(byte[])},
 * {@link JsonRpcScanner#scan(byte[])} and the tree a message reads later) and an upstream event the relay may pass
 * unread ({@link NotificationScan}). Jackson's table of names copied its whole area for each long name it added: N names
 * of 50,000 characters cost N&sup2; (900 of them: 13 s on an event loop, a ping on the same loop waited 10.7 s).
 *
 * <p>The work is counted as the bytes the parsing thread allocates ({@code ThreadMXBean#getThreadAllocatedBytes}),
 * which does not depend on the machine's speed: the table grew by a copy of its whole area for each name. Three times
 * the names must cost about three times as much, not nine.
 */
class JsonRpcLongNamesCostTest {

	private static final int FEW = 150;

	private static final int MANY = 3 * FEW;

	static final int NAME = 5_000;

	@Test
	void aClientBodyOfLongNamesCostsLinearWork() {
		assertLinear("a client's tools/call", JsonRpcLongNamesCostTest::call, JsonRpcParser::parseClientBody);
	}

	@Test
	void anUpstreamAnswerOfLongNamesCostsLinearWork() {
		assertLinear("an upstream's answer, parsed", JsonRpcLongNamesCostTest::answer, JsonRpcParser::parse);
		assertLinear("an upstream's answer, scanned and read", JsonRpcLongNamesCostTest::answer,
				body -> assertThat(JsonRpcScanner.scan(body).first().node().at("/result/structuredContent").size())
					.isPositive());
	}

	@Test
	void anUpstreamNotificationOfLongNamesCostsLinearWork() {
		assertLinear("an upstream's notification, bytes", JsonRpcLongNamesCostTest::notification,
				body -> assertThat(NotificationScan.isPlainNotification(body, 0, body.length)).isTrue());
		assertLinear("an upstream's notification, text", JsonRpcLongNamesCostTest::notification, body -> assertThat(
				NotificationScan.isPlainNotification(new String(body, StandardCharsets.UTF_8))).isTrue());
	}

	@Test
	void aSmallToolsCallCostsWhatItDid() throws Exception {
		byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"get_weather\","
				+ "\"arguments\":{\"city\":\"Lisbon\",\"units\":\"metric\"},\"_meta\":{\"progressToken\":\"p-7\"}}}")
			.getBytes(StandardCharsets.UTF_8);
		for (int i = 0; i < 2000; i++) {
			JsonRpcParser.parseClientBody(body);
		}
		long before = allocated();
		for (int i = 0; i < 100; i++) {
			JsonRpcParser.parseClientBody(body);
		}
		long each = (allocated() - before) / 100;
		System.out.println("one parse of a small tools/call (" + body.length + " bytes) allocates " + each + " bytes");
		assertThat(each).as("bytes allocated by one parse of a small tools/call (3,520 before long names were mended)")
			.isLessThanOrEqualTo(3_600);
	}

	/** Parses a body of {@link #MANY} names and one of {@link #FEW}, and compares the bytes each parse allocated. */
	private static void assertLinear(String what, IntFunction<byte[]> bodyOf, Parse parse) {
		try {
			parse.parse(bodyOf.apply(10));
			byte[] few = bodyOf.apply(FEW);
			long start = allocated();
			parse.parse(few);
			long fewCost = allocated() - start;
			byte[] many = bodyOf.apply(MANY);
			start = allocated();
			parse.parse(many);
			long manyCost = allocated() - start;
			System.out.println(what + ": " + FEW + " names (" + few.length + " bytes) allocate " + fewCost + " bytes, "
					+ MANY + " names (" + many.length + " bytes) " + manyCost);
			assertThat((double) manyCost / fewCost)
				.as(what + ": the work for three times the names, relative (%d bytes, then %d)", fewCost, manyCost)
				.isLessThan(3.6);
			assertThat(manyCost).as(what + ": the work for %d bytes of names", many.length)
				.isLessThan(8L * many.length);
		}
		catch (Exception ex) {
			throw new AssertionError(what, ex);
		}
	}

	private static long allocated() {
		return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
	}

	/** {@code names} unique member names of {@link #NAME} characters, in one object. */
	static String members(int names) {
		return members(names, "");
	}

	/** {@code names} unique member names of {@link #NAME} characters, each starting with {@code prefix}. */
	static String members(int names, String prefix) {
		StringBuilder json = new StringBuilder(names * (NAME + 8)).append('{');
		for (int i = 0; i < names; i++) {
			String unique = prefix + i;
			json.append(i == 0 ? "" : ",").append('"').append(unique).append("x".repeat(NAME - unique.length()))
				.append("\":0");
		}
		return json.append('}').toString();
	}

	private static byte[] call(int names) {
		return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
				+ members(names) + "}}").getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] answer(int names) {
		return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"structuredContent\":" + members(names) + "}}")
			.getBytes(StandardCharsets.UTF_8);
	}

	static byte[] notification(int names) {
		return notification(names, "");
	}

	static byte[] notification(int names, String prefix) {
		return ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":"
				+ members(names, prefix) + "}}").getBytes(StandardCharsets.UTF_8);
	}

	@FunctionalInterface
	private interface Parse {

		void parse(byte[] body) throws Exception;

	}

}
