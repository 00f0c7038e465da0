package dev.mcprelay.proxy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Checks a POST's {@code Mcp-Param-*} headers against the arguments they mirror ({@link ParameterHeaders}) before any
 * interceptor or upstream sees the request, right after {@code Mcp-Method} and {@code Mcp-Name}
 * ({@link MirroredHeaders}), and keeps the headers true to what is forwarded when an interceptor changed a mirrored
 * argument ({@link #mirrorForwarded}).
 *
 * <p>
 * Only a request that carries a parameter header is checked, and only its {@code tools/call} messages: which argument
 * a header mirrors is the called tool's declaration, read from the server's tool list as published to the caller's
 * view ({@link ToolDeclarations}; a listing only when the view has not seen the tool, or saw it longer ago than the
 * server's {@code tools.annotations-max-age}). A request without one costs nothing. A tool the server did not publish
 * declares nothing: its headers go on untouched, and the server answers the unknown tool. A tool list that cannot be
 * read refuses the request ({@link RelayFailures#parameterHeadersUncheckable}).
 */
@Component
public class ParameterHeaderChecks {

	/** The called tool's declarations and the arguments they mirrored as the client sent them, in the request's attributes. */
	private static final String CHECKED = ParameterHeaderChecks.class.getName() + ".checked";

	/** What was checked of a single {@code tools/call}: its declarations, and each declared argument as sent. */
	private record Checked(Map<String, ParameterHeaders.Mirrored> declared, Map<String, JsonNode> sent) {
	}

	private final ToolDeclarations declarations;

	ParameterHeaderChecks(ToolDeclarations declarations) {
		this.declarations = declarations;
	}

	/**
	 * Checks the parameter headers of {@code headers} against each {@code tools/call} of {@code payload}.
	 *
	 * @return empty when they agree (or there are none); a {@link RelayFailure} to answer with when a declared header
	 * contradicts its argument (400, -32020, {@code header_mismatch}) or the tool list cannot be read
	 */
	public Mono<Void> check(HttpHeaders headers, JsonRpcPayload payload, CallContext context, String server) {
		if (!ParameterHeaders.anyIn(headers)) {
			return Mono.empty();
		}
		List<JsonRpcMessage> calls = payload.messages()
			.stream()
			.filter(message -> message.isRequest() && "tools/call".equals(message.method())
					&& message.node().path("params").path("name").isTextual())
			.toList();
		return Flux.fromIterable(calls).concatMap(call -> {
			JsonNode params = call.node().path("params");
			JsonNode arguments = params.path("arguments");
			return declarations.of(context, params.get("name").textValue()).flatMap(found -> {
				Map<String, ParameterHeaders.Mirrored> declared = found.orElse(Map.of());
				RelayFailure mismatch = ParameterHeaders.mismatch(headers, arguments, declared, server);
				if (mismatch != null) {
					return Mono.error(mismatch);
				}
				if (!payload.batch() && !declared.isEmpty()) {
					context.attributes().put(CHECKED, new Checked(declared, valuesOf(arguments, declared)));
				}
				return Mono.<Void>empty();
			});
		}).then();
	}

	/**
	 * Writes the parameter headers of the arguments an interceptor changed on {@code wire} (the headers going upstream)
	 * as the forwarded arguments say ({@link ParameterHeaders#mirror}): only for a single {@code tools/call} whose
	 * headers {@link #check} checked; the headers of arguments that go as the client sent them stay as they were.
	 */
	public static void mirrorForwarded(HttpHeaders wire, CallContext context, InboundPlan plan) {
		if (plan == null || !(context.attributes().get(CHECKED) instanceof Checked checked)
				|| plan.forwardedMessages().size() != 1) {
			return;
		}
		JsonNode arguments = plan.forwardedMessages().get(0).path("params").path("arguments");
		Map<String, ParameterHeaders.Mirrored> changed = new HashMap<>();
		checked.declared().forEach((name, mirrored) -> {
			JsonNode now = mirrored.path() == null ? null : ParameterHeaders.valueAt(arguments, mirrored.path());
			JsonNode sent = checked.sent().get(name);
			if (now == null ? sent != null : !now.equals(sent)) {
				changed.put(name, mirrored);
			}
		});
		if (!changed.isEmpty()) {
			ParameterHeaders.mirror(wire, arguments, changed);
		}
	}

	private static Map<String, JsonNode> valuesOf(JsonNode arguments, Map<String, ParameterHeaders.Mirrored> declared) {
		Map<String, JsonNode> values = new HashMap<>();
		declared.forEach((name, mirrored) -> {
			JsonNode value = mirrored.path() == null ? null : ParameterHeaders.valueAt(arguments, mirrored.path());
			if (value != null) {
				values.put(name, value.deepCopy());
			}
		});
		return values;
	}

}
