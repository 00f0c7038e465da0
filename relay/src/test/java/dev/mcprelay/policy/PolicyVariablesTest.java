package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The variables of a message ({@link PolicyVariables}) are made when an expression first reads them, once per
 * message: a call decided by rules on its headers and its arguments never makes the caller's variable (nothing of the
 * caller is read), and each variable the rules read is the one {@link PolicyFacts} makes, whichever rule reads it
 * first.
 */
class PolicyVariablesTest {

	private static final RequestHeaders HEADERS = RequestHeaders.of(Map.of("X-Blocked", List.of("no")));

	@Test
	void aVariableNoRuleReadsIsNeverMade() {
		AtomicInteger claimsRead = new AtomicInteger();
		Caller caller = Caller.token("alice", Set.of("mcp"), Map.of("sub", "alice", "counted", counting(claimsRead)));
		Policies onHeadersAndArguments = policies("deny", "request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"",
				"deny", "mcp.arguments.?message.orValue(\"\") == \"rm -rf /\"");

		assertThat(onHeadersAndArguments.decide(call(caller, Map.of("message", "hello"))).allowed()).isTrue();
		assertThat(onHeadersAndArguments.decide(call(caller, Map.of("message", "rm -rf /"))).allowed()).isFalse();
		assertThat(claimsRead).as("no rule reads the caller: its variable is never made").hasValue(0);

		Policies onTheCaller = policies("deny", "request.headers[?\"x-blocked\"].orValue(\"\") == \"yes\"", "allow",
				"caller.claims.?counted.orValue(\"\") == \"counted\"");
		assertThat(onTheCaller.decide(call(caller, Map.of())).allowed()).isTrue();
		assertThat(claimsRead).as("a rule reads the caller: its variable is made").hasPositiveValue();
	}

	@Test
	void eachVariableIsMadeOncePerMessageAsTheFactsMakeIt() {
		PolicyFacts facts = call(Caller.ANONYMOUS, Map.of("message", "hello"));
		PolicyVariables variables = facts.variables();

		for (String name : List.of("caller", "server", "mcp", "request")) {
			assertThat(variables.find(name)).as(name).isPresent().containsSame(variables.find(name).get());
		}
		assertThat(variables.find("mcp")).contains(facts.mcpValue());
		assertThat(variables.find("server")).contains(Map.of("id", "github", "virtual", ""));
		assertThat(variables.find("caller")).contains(PolicyFacts.callerOf(Caller.ANONYMOUS));
		assertThat(variables.find("request").get()).isEqualTo(Map.of("headers", Map.of("x-blocked", "no")));
		assertThat(variables.find("other")).isEmpty();

		PolicyVariables empty = variables.withEmptyArguments();
		assertThat(empty.find("mcp")).contains(facts.withArgumentValues(Map.of()).mcpValue());
		for (String name : List.of("caller", "server", "request")) {
			assertThat(empty.find(name).get()).as(name).isSameAs(variables.find(name).get());
		}
	}

	private static PolicyFacts call(Caller caller, Map<String, Object> arguments) {
		return new PolicyFacts(caller, "github", null, "tools/call", false, "echo", Map.of(), null, null, null, HEADERS)
			.withArguments(arguments);
	}

	private static Policies policies(String... kindExpression) {
		List<Policy> list = new java.util.ArrayList<>();
		for (int i = 0; i < kindExpression.length; i += 2) {
			try {
				list.add(new Policy("p" + i, Set.of("*"), kindExpression[i].equals("deny"),
						new CelRule(PolicyEnvironment.compile(kindExpression[i + 1])), true));
			}
			catch (dev.cel.common.CelValidationException ex) {
				throw new IllegalArgumentException(kindExpression[i + 1], ex);
			}
		}
		return new Policies(list, new PolicyMeters(new SimpleMeterRegistry()));
	}

	/** A claim's value that counts each time the caller's variable is made of it (as its text). */
	private static Object counting(AtomicInteger reads) {
		return new Object() {

			@Override
			public String toString() {
				reads.incrementAndGet();
				return "counted";
			}

		};
	}

}
