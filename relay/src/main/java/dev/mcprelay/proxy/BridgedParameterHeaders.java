package dev.mcprelay.proxy;

import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.bridge.VersionBridge;
import dev.mcprelay.intercept.InboundPlan;
import reactor.core.publisher.Mono;

/**
 * The {@code Mcp-Param-*} headers of a 2025 client's {@code tools/call} that the version bridge carries to a
 * 2026-07-28 server (a session the bridge gave the client, {@link VersionBridge#isBridgedSession}): 2026-07-28 has a
 * client send one for each argument the called tool declares with {@code x-mcp-header}, and a conforming server
 * refuses a call without them (review 43h, F-6). The relay writes them as a 2026 client would
 * ({@link ParameterHeaders#mirror}), from the arguments it forwards, the declarations read as the tool was published
 * to the caller's view ({@link ToolDeclarations}). A tool list that cannot be read writes none: the call goes as a
 * 2025 client sent it, and a server that needs the headers answers it (most tools declare none; a 2025 client asked
 * the relay to check nothing).
 */
@Component
public class BridgedParameterHeaders {

	/** The called tool's declarations, in the request's attributes. */
	private static final String DECLARED = BridgedParameterHeaders.class.getName() + ".declared";

	private final ToolDeclarations declarations;

	BridgedParameterHeaders(ToolDeclarations declarations) {
		this.declarations = declarations;
	}

	/**
	 * Reads, once the request stages decided and before anything goes upstream, what the tool a single
	 * {@code tools/call} that {@code plan} forwards in the bridged session {@code sessionId} calls declares, for
	 * {@link #write}; nothing for any other request. Never fails.
	 */
	Mono<Void> declare(String sessionId, CallContext context, InboundPlan plan) {
		if (sessionId == null || !VersionBridge.isBridgedSession(sessionId) || plan.forwardedMessages().size() != 1) {
			return Mono.empty();
		}
		ObjectNode message = plan.forwardedMessages().get(0);
		JsonNode tool = message.path("params").path("name");
		if (!message.has("id") || !"tools/call".equals(message.path("method").asText()) || !tool.isTextual()) {
			return Mono.empty();
		}
		return declarations.of(context, tool.textValue())
			.doOnNext(found -> found.filter(declared -> !declared.isEmpty())
				.ifPresent(declared -> context.attributes().put(DECLARED, declared)))
			.onErrorResume(unreadable -> Mono.empty())
			.then();
	}

	/**
	 * Writes on {@code wire} (the headers going upstream) the headers the called tool declares ({@link #declare}), as
	 * the arguments {@code plan} forwards say; nothing when it declares none.
	 */
	@SuppressWarnings("unchecked")
	static void write(HttpHeaders wire, CallContext context, InboundPlan plan) {
		if (plan == null || plan.forwardedMessages().size() != 1
				|| !(context.attributes().get(DECLARED) instanceof Map<?, ?> declared)) {
			return;
		}
		JsonNode arguments = plan.forwardedMessages().get(0).path("params").path("arguments");
		ParameterHeaders.mirror(wire, arguments, (Map<String, ParameterHeaders.Mirrored>) declared);
	}

}
