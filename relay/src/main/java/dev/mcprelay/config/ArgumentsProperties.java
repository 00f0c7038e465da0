package dev.mcprelay.config;

import java.util.List;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tool arguments the relay controls, mcp-relay.servers.<id>.arguments: values it injects into {@code tools/call}
 * (the relay's value wins over a client's of the same name), and a reserved prefix for argument names that only the
 * relay may set. A top-level argument whose name starts with the prefix is removed from every published tool schema
 * (its property and its {@code required} entry) and refused when a client sends it (-32602, naming every such key);
 * the keys the relay injects are exempt.
 *
 * @param reservedPrefix the prefix of reserved argument names; {@code ""} turns the protection off
 * @param inject the arguments injected into calls, in order
 */
public record ArgumentsProperties(
		@DefaultValue("_") String reservedPrefix,
		@DefaultValue List<InjectedArgumentProperties> inject) {

	public ArgumentsProperties {
		reservedPrefix = reservedPrefix == null ? "" : reservedPrefix;
		inject = inject == null ? List.of() : List.copyOf(inject);
	}

	/** Whether reserved names are protected. */
	public boolean reserves() {
		return !reservedPrefix.isEmpty();
	}

	@Override
	public String toString() {
		return "ArgumentsProperties[reservedPrefix=" + reservedPrefix + ", inject=" + inject + "]";
	}

}
