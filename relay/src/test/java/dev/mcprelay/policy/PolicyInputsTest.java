package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What an expression reads is found exactly, each chain of field selections read as a whole: a rule about prompts
 * reads no tool and no arguments (so a tool call costs it nothing, and it is never blamed for one), a rule about a
 * tool's name reads the tool but not its annotations, and only a variable used whole reads everything under it.
 */
class PolicyInputsTest {

	@Test
	void eachChainOfSelectionsIsReadAsAWhole() {
		PolicyInputs prompts = inputs("mcp.prompt.name == \"secret_prompt\"");
		assertThat(prompts.tool()).as("a rule about prompts reads no tool").isFalse();
		assertThat(prompts.annotations()).isFalse();
		assertThat(prompts.arguments()).isFalse();
		assertThat(prompts.perItem()).as("but it differs from one prompt to the next").isTrue();

		PolicyInputs name = inputs("mcp.tool.name.startsWith(\"admin_\")");
		assertThat(name.tool()).isTrue();
		assertThat(name.annotations()).as("the name alone").isFalse();

		assertThat(inputs("mcp.tool.annotations.?readOnlyHint.orValue(false)").annotations()).isTrue();
		assertThat(inputs("has(mcp.tool.annotations.destructiveHint)").annotations()).isTrue();
		assertThat(inputs("\"readOnlyHint\" in mcp.tool.annotations").annotations()).isTrue();
		assertThat(inputs("mcp.arguments.?env.orValue(\"\") == \"prod\"").arguments()).isTrue();
		assertThat(inputs("mcp.arguments.?env.orValue(\"\") == \"prod\"").tool()).isFalse();

		PolicyInputs caller = inputs("caller.kind == \"api_key\" && mcp.method == \"tools/call\"");
		assertThat(caller.tool() || caller.arguments() || caller.perItem()).as("what names no item").isFalse();
	}

	@Test
	void aVariableUsedWholeReadsEverythingUnderIt() {
		PolicyInputs tool = inputs("mcp.tool == mcp.tool");
		assertThat(tool.tool()).isTrue();
		assertThat(tool.annotations()).isTrue();
		assertThat(tool.arguments()).isFalse();
		PolicyInputs all = inputs("mcp == mcp");
		assertThat(all.tool() && all.annotations() && all.arguments() && all.perItem()).isTrue();
	}

	private static PolicyInputs inputs(String expression) {
		try {
			return PolicyEnvironment.compile(expression).inputs();
		}
		catch (dev.cel.common.CelValidationException ex) {
			throw new AssertionError(expression, ex);
		}
	}

}
