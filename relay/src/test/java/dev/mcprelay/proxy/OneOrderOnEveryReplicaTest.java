package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.session.SessionState;

/**
 * What the relay writes comes out in one order in every JVM, so that replicas behind one load balancer answer alike:
 * a {@code Map.of} or {@code Set.of} is iterated in an order drawn when its JVM starts, so the same code wrote
 * {@code Allow: GET,DELETE,POST} in one replica and {@code POST,GET,DELETE} in the next. Eight fresh JVMs each print
 * what comes out of the relay's ordered places when they are handed such maps ({@link #main}): the 405's
 * {@code Allow}, an error's {@code data}, the members of a stored session; all eight must print the same. With the
 * {@code Map.of}s and {@code Set.of}s these places kept, the eight JVMs of one run printed four orders of
 * {@code Allow} alone (an order is drawn per JVM: eight alike are unlikely, so the old code seldom passes).
 */
class OneOrderOnEveryReplicaTest {

	@Test
	void everyJvmWritesTheSameOrder() throws Exception {
		Set<String> printed = new LinkedHashSet<>();
		List<String> all = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			String out = run();
			printed.add(out);
			all.add(out);
		}
		assertThat(printed).as("what eight JVMs printed: %s", all).hasSize(1);
		assertThat(printed.iterator().next()).contains("allow=POST,GET,DELETE")
			.contains("data={\"reason\":\"r\",\"candidates\":\"c\",\"member\":\"m\",\"server\":\"s\"}")
			.contains("members=[a, b, c, d]");
	}

	/** What one fresh JVM prints. */
	private static String run() throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Process process = new ProcessBuilder(java.toString(), "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
				OneOrderOnEveryReplicaTest.class.getName())
			.redirectErrorStream(true)
			.start();
		String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(out).isZero();
		return out;
	}

	/** Prints the orders, one a line, each from a map or set whose own order is this JVM's. */
	public static void main(String[] args) {
		System.out.println("allow=" + String.join(",", RelayFailures.ENDPOINT_METHODS.stream().map(Object::toString).toList()));
		System.out.println("data=" + JsonRpcErrors.error(null, -32600, "m",
				Map.of("server", "s", "reason", "r", "member", "m", "candidates", "c")).get("error").get("data"));
		System.out.println("members=" + new SessionState("caller", Set.of("x", "y", "z"),
				Map.of("c", "3", "a", "1", "d", "4", "b", "2")).members().keySet());
	}

}
