package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.jsonrpc.JsonRpcJson;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Review 43f F-B: a number CEL cannot hold (magnitude 2^63 or more: {@code 18446744073709551638}, 2^64+22, which a Java
 * server's {@code intValue()} reads as 22) was a {@code double} to the rules, so a deny on {@code port == 22} passed it.
 * Now the rule that reads it fails at run time ({@code number_out_of_range}: enforced, it refuses and counts an error;
 * in audit mode it counts the error and refuses nothing); a rule that does not read it decides as before; a token
 * claim of that size fails the rule that reads it, never the making of the caller's variable.
 */
class NumbersOutOfRangeTest {

	private static final List<String> BEYOND_INT64 = List.of("18446744073709551638", "-18446744073709551594",
			"9223372036854775830", "-9223372036854775809", "18446744073709551638.0", "1.8446744073709551638e19",
			"1e400");

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void aDenyOnAnIntegerRefusesANumberBeyondInt64AsAnError() throws Exception {
		Policies equality = policies(true, "port22", "mcp.arguments.?port.orValue(0) == 22");
		Policies membership = policies(true, "ports-in", "mcp.arguments.?port.orValue(0) in [22]");

		for (String port : BEYOND_INT64) {
			PolicyFacts call = call(Caller.ANONYMOUS, "{\"port\":" + port + ",\"env\":\"dev\"}");
			assertThat(equality.decide(call)).as(port).isEqualTo(new PolicyDecision(false, "port22", true));
			assertThat(membership.decide(call)).as(port).isEqualTo(new PolicyDecision(false, "ports-in", true));
		}
		assertThat(counted("port22", "error")).isEqualTo(BEYOND_INT64.size());
		assertThat(equality.decide(call(Caller.ANONYMOUS, "{\"port\":22}")))
			.isEqualTo(new PolicyDecision(false, "port22", false));
		for (String port : List.of("23", "9223372036854775807", "-9223372036854775808", "1.5", "9.2e18")) {
			assertThat(equality.decide(call(Caller.ANONYMOUS, "{\"port\":" + port + "}")).allowed()).as(port).isTrue();
		}
	}

	@Test
	void aRuleThatDoesNotReadTheNumberDecidesAsBefore() throws Exception {
		Policies onEnv = policies(true, "no-prod", "mcp.arguments.?env.orValue(\"\") == \"prod\"", "keys",
				"mcp.arguments.exists(k, k == \"forbidden\") || has(mcp.arguments.nested.deep) && size(mcp.arguments) > 9");

		assertThat(onEnv.decide(call(Caller.ANONYMOUS,
				"{\"port\":18446744073709551638,\"env\":\"dev\",\"nested\":{\"deep\":1e400}}")).allowed()).isTrue();
		assertThat(onEnv.decide(call(Caller.ANONYMOUS, "{\"port\":18446744073709551638,\"env\":\"prod\"}")))
			.isEqualTo(new PolicyDecision(false, "no-prod", false));
		assertThat(counted("no-prod", "error") + counted("keys", "error")).isZero();
	}

	@Test
	void anAuditModeRuleThatReadsItCountsTheErrorAndRefusesNothing() throws Exception {
		Policies audit = policies(false, "port22", "mcp.arguments.?port.orValue(0) == 22");

		assertThat(audit.decide(call(Caller.ANONYMOUS, "{\"port\":18446744073709551638}")).allowed()).isTrue();
		assertThat(counted("port22", "error")).isEqualTo(1);
	}

	@Test
	void aClaimBeyondInt64FailsTheRuleThatReadsItOnly() throws Exception {
		Caller caller = Caller.token("alice", Set.of("mcp"),
				Map.of("sub", "alice", "tenant", new BigInteger("18446744073709551638")));
		assertThat(PolicyFacts.callerOf(caller)).as("made without reading the claim").containsKey("claims");

		assertThat(policies(true, "tenant22", "caller.claims.?tenant.orValue(0) == 22").decide(call(caller, "{}")))
			.isEqualTo(new PolicyDecision(false, "tenant22", true));
		assertThat(policies(true, "not-bob", "caller.claims.sub == \"bob\"").decide(call(caller, "{}")).allowed())
			.isTrue();
		assertThat(counted("tenant22", "error")).isEqualTo(1);
	}

	private static PolicyFacts call(Caller caller, String arguments) throws Exception {
		ObjectNode message = (ObjectNode) JsonRpcJson.mapper().readTree(
				"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"connect\",\"arguments\":"
						+ arguments + "}}");
		ToolsCallRequest request = new ToolsCallRequest(new CallContext("s", RequestHeaders.empty()), message);
		return new PolicyFacts(caller, "s", null, "tools/call", false, "connect", Map.of(), null, null, null,
				RequestHeaders.empty())
			.withArguments(request);
	}

	private double counted(String policy, String outcome) {
		io.micrometer.core.instrument.Counter counter = registry.find(PolicyMeters.DECISIONS).tag("policy", policy)
			.tag("outcome", outcome).counter();
		return counter == null ? 0 : counter.count();
	}

	private Policies policies(boolean enforced, String... nameExpression) {
		List<Policy> list = new java.util.ArrayList<>();
		for (int i = 0; i < nameExpression.length; i += 2) {
			try {
				list.add(new Policy(nameExpression[i], Set.of("*"), true,
						new CelRule(PolicyEnvironment.compile(nameExpression[i + 1])), enforced));
			}
			catch (dev.cel.common.CelValidationException ex) {
				throw new AssertionError(ex);
			}
		}
		return new Policies(list, new PolicyMeters(registry));
	}

}
