package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One argument the relay injects into {@code tools/call}, mcp-relay.servers.<id>.arguments.inject[n]. Exactly one of
 * {@code value}, {@code from-request-header} and {@code from-caller-claim} says where its value comes from; a header
 * the request does not carry injects nothing.
 *
 * @param name the argument's name (a reserved name, e.g. {@code _tenant}, is the usual choice: clients cannot set it)
 * @param value a static value (a string); a secret, never logged
 * @param fromRequestHeader the inbound request header whose value is injected
 * @param fromCallerClaim the claim of the authenticated caller whose value is injected (needs authenticated callers)
 * @param tools the tools it is injected into: names or globs with {@code *}; all tools by default
 */
public record InjectedArgumentProperties(
		String name,
		String value,
		String fromRequestHeader,
		String fromCallerClaim,
		@DefaultValue("*") List<String> tools) {

	public InjectedArgumentProperties {
		tools = tools == null || tools.isEmpty() ? List.of("*") : List.copyOf(tools);
	}

	@Override
	public String toString() {
		String source = value != null ? "value=<redacted>"
				: fromRequestHeader != null ? "from-request-header=" + fromRequestHeader
						: "from-caller-claim=" + fromCallerClaim;
		return "InjectedArgumentProperties[name=" + name + ", " + source + ", tools=" + tools + "]";
	}

}
