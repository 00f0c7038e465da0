package dev.mcprelay.proxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.jsonrpc.ProtocolVersions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Checks a POST's {@code Mcp-Param-*} headers against the arguments they mirror ({@link ParameterHeaders}) once the
 * request stages have decided and before anything goes upstream, and keeps the headers true to what is forwarded when
 * an interceptor changed a mirrored argument ({@link #mirrorForwarded}). Only the calls the stages let go are checked:
 * a tool they hide from the caller (a policy, {@code tools.deny}) is answered as one that does not exist whatever its
 * headers say, and a request they refuse (a rate limit) costs no tool listing.
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

	/** A {@code tools/call} as the client sent it: the tool's name and a copy of its arguments. */
	public record SentCall(String tool, JsonNode arguments) {
	}

	/**
	 * The {@code tools/call} requests of {@code payload} as the client sent them, by id (their arguments copied, so
	 * that what an interceptor changes later does not change what the headers are checked against): taken before the
	 * request stages run, for {@link #check} after them. Only for a request that carries a parameter header.
	 */
	public static Map<JsonNode, SentCall> sentCalls(JsonRpcPayload payload) {
		Map<JsonNode, SentCall> sent = new HashMap<>();
		for (JsonRpcMessage message : payload.messages()) {
			JsonNode params = message.node().path("params");
			if (message.isRequest() && "tools/call".equals(message.method()) && params.path("name").isTextual()) {
				sent.put(message.node().path("id"),
						new SentCall(params.get("name").textValue(), params.path("arguments").deepCopy()));
			}
		}
		return sent;
	}

	/**
	 * What must be done of the {@code Mcp-Param-*} headers of a request before {@code plan} goes upstream, or
	 * {@code null} when nothing (the common case: no {@code Mcp-Param-*} header, nothing changed, costs nothing):
	 * {@link #check} where the client sent such a header ({@code sent}: its calls, {@link #sentCalls}); else, where
	 * the stages changed a single {@code tools/call} of a 2026-07-28 request ({@code arguments.inject}, an
	 * interceptor), or {@code bridged} (a 2025 client's single {@code tools/call} in a session the version bridge
	 * carries to a 2026-07-28 server, whose client writes no such header), the called tool's declarations are read,
	 * so that {@link #mirrorForwarded} writes the header of each declared argument that goes upstream: the client sent
	 * none, and a 2026-07-28 server refuses an argument its header does not mirror (review 43h F-1, F-6). A tool list
	 * that cannot be read, or not within a short share of the call's bound ({@link ToolDeclarations#toWrite}), then
	 * leaves the request as it is (the server answers what lacks its header); nothing is refused for it, and such a
	 * call never waits the whole listing bound (review 43j N-2). On both paths, a header the relay would write that it
	 * cannot ({@link ParameterHeaders#unwritable}: longer than {@link dev.mcprelay.transport.WrittenHeaderBound}, or no
	 * valid Unicode) refuses the call before anything goes upstream (review 46k K3, 43j N-5).
	 */
	public Mono<Void> beforeForwarding(HttpHeaders headers, Map<JsonNode, SentCall> sent, boolean batch,
			boolean bridged, InboundPlan plan, CallContext context, String server) {
		if (sent != null) {
			return check(headers, sent, batch, plan, context, server)
				.then(Mono.defer(() -> writable(context, plan, server)));
		}
		if (batch || plan.forwardedMessages().size() != 1 || !(bridged
				|| plan.changed() && ProtocolVersions.isPerRequest(headers.getFirst("MCP-Protocol-Version")))) {
			return null;
		}
		ObjectNode call = plan.forwardedMessages().get(0);
		JsonNode tool = call.path("params").path("name");
		if (!"tools/call".equals(call.path("method").asText(null)) || !tool.isTextual()) {
			return null;
		}
		return declarations.toWrite(context, tool.textValue()).doOnNext(found -> found.filter(declared -> !declared.isEmpty())
			.ifPresent(declared -> context.attributes().put(CHECKED, new Checked(declared, Map.of()))))
			.onErrorResume(failure -> Mono.empty())
			.then(Mono.defer(() -> writable(context, plan, server)));
	}

	/**
	 * Empty when every header {@link #mirrorForwarded} will write for {@code plan} can be written; else the failure
	 * to answer with ({@link ParameterHeaders#unwritable}: 400, -32602, {@code header_unwritable}), before anything
	 * goes upstream (review 43j N-5, 46k K3).
	 */
	private static Mono<Void> writable(CallContext context, InboundPlan plan, String server) {
		if (!(context.attributes().get(CHECKED) instanceof Checked checked) || plan.forwardedMessages().size() != 1) {
			return Mono.empty();
		}
		JsonNode arguments = plan.forwardedMessages().get(0).path("params").path("arguments");
		RelayFailure unwritable = ParameterHeaders.unwritable(arguments, toWrite(checked, arguments), server);
		return unwritable == null ? Mono.empty() : Mono.error(unwritable);
	}

	/**
	 * Checks the parameter headers of {@code headers} against each {@code tools/call} in {@code sent} (as the client
	 * sent it, {@link #sentCalls}) that {@code plan} forwards; {@code batch}: whether the request was a batch.
	 *
	 * @return empty when they agree (or there are none); a {@link RelayFailure} to answer with when a declared header
	 * contradicts its argument (400, -32020, {@code header_mismatch}) or the tool list cannot be read
	 */
	public Mono<Void> check(HttpHeaders headers, Map<JsonNode, SentCall> sent, boolean batch, InboundPlan plan,
			CallContext context, String server) {
		List<SentCall> calls = new ArrayList<>();
		for (ObjectNode message : plan.forwardedMessages()) {
			SentCall call = sent.get(message.path("id"));
			if (call != null) {
				calls.add(call);
			}
		}
		return Flux.fromIterable(calls).concatMap(call -> declarations.of(context, call.tool()).flatMap(found -> {
			Map<String, ParameterHeaders.Mirrored> declared = found.orElse(Map.of());
			RelayFailure mismatch = ParameterHeaders.mismatch(headers, call.arguments(), declared, server);
			if (mismatch != null) {
				return Mono.error(mismatch);
			}
			if (!batch && !declared.isEmpty()) {
				context.attributes().put(CHECKED, new Checked(declared, valuesOf(call.arguments(), declared)));
			}
			return Mono.<Void>empty();
		})).then();
	}

	/**
	 * Writes the parameter headers of the arguments an interceptor changed on {@code wire} (the headers going upstream)
	 * as the forwarded arguments say ({@link ParameterHeaders#mirror}): only for a single {@code tools/call} whose
	 * declarations {@link #beforeForwarding} read; the headers of arguments that go as the client sent them stay as
	 * they were (where the client sent no parameter header, every declared argument that goes upstream gets one).
	 */
	public static void mirrorForwarded(HttpHeaders wire, CallContext context, InboundPlan plan) {
		if (plan == null || !(context.attributes().get(CHECKED) instanceof Checked checked)
				|| plan.forwardedMessages().size() != 1) {
			return;
		}
		JsonNode arguments = plan.forwardedMessages().get(0).path("params").path("arguments");
		Map<String, ParameterHeaders.Mirrored> changed = toWrite(checked, arguments);
		if (!changed.isEmpty()) {
			ParameterHeaders.mirror(wire, arguments, changed);
		}
	}

	/** The declarations whose headers are written for {@code arguments} (those forwarded): those whose argument changed. */
	private static Map<String, ParameterHeaders.Mirrored> toWrite(Checked checked, JsonNode arguments) {
		Map<String, ParameterHeaders.Mirrored> changed = new HashMap<>();
		checked.declared().forEach((name, mirrored) -> {
			JsonNode now = mirrored.path() == null ? null : ParameterHeaders.valueAt(arguments, mirrored.path());
			JsonNode sent = checked.sent().get(name);
			if (now == null ? sent != null : !now.equals(sent)) {
				changed.put(name, mirrored);
			}
		});
		return changed;
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
