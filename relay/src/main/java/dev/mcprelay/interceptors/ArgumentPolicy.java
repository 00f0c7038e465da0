package dev.mcprelay.interceptors;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.config.ArgumentsProperties;
import dev.mcprelay.config.InjectedArgumentProperties;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.intercept.ConfiguredInterceptor;
import dev.mcprelay.intercept.CallConfiguration;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;
import dev.mcprelay.text.LogText;
import reactor.core.publisher.Mono;

/**
 * The tool arguments of {@code mcp-relay.servers.<id>.arguments}: server-side injection with a reserved prefix.
 * <ul>
 * <li><b>tools/list</b>, wherever the result travels (JSON, POST or GET stream): every top-level property whose name
 * has the reserved prefix leaves each tool's {@code inputSchema}, with its {@code required} entry; the rest of the
 * tool is relayed as received. A tool that declares a reserved argument no injection supplies is logged once as a
 * warning: no client can ever set it.</li>
 * <li><b>tools/call</b>: a client argument with the reserved prefix (top level only; nested keys are the tool's
 * business) is refused with -32602 naming every such key, and logged with the tool and the keys (escaped, cut), never
 * the values; then the configured arguments are injected, the relay's value winning over a client's of the same name.
 * An injected argument is the relay's to set: when its header or claim is missing, nothing is injected and a client's
 * value of that name is removed, so the tool never takes the client's word for it.</li>
 * </ul>
 * It runs right after tool search and before the policies (with the tool allow/deny lists), so that a call is decided
 * on the arguments as they go upstream, the injected ones included (a rule on {@code mcp.arguments.env} judges the
 * {@code env} the relay injects, not the one the client sent; review 43e F4), and before interceptors of default
 * order, so the refusal sees only what the client sent: an interceptor that injects afterwards
 * ({@link ToolsCallRequest#injectArgument}) is exempt. The refusal of reserved keys does not depend on the tool, so a
 * call of a tool the policies hide is answered as one of a tool that does not exist.
 *
 * <p>The rules are a part of each configuration snapshot ({@link SnapshotPart}); a call or list reads those of the
 * snapshot its request runs on ({@link CallConfiguration}).
 *
 * @see <a href="https://modelcontextprotocol.io/specification/2025-11-25/server/tools">MCP, tools</a>
 */
@Component
public class ArgumentPolicy implements ToolsCallRequestInterceptor, ToolsListResponseInterceptor, ConfiguredInterceptor,
		Ordered,
		SnapshotPart<Map<String, ArgumentPolicy.ServerRules>> {

	/** Right after tool search, before the policies: they decide on the arguments injected here. */
	public static final int ORDER = PolicyEnforcement.ORDER - 1;

	private static final Logger log = LoggerFactory.getLogger(ArgumentPolicy.class);

	/** "server tool key" for each reserved argument already warned about. */
	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	/** The rules a call runs on: its snapshot's. */
	private final Function<CallContext, Map<String, ServerRules>> rulesOf;

	@Autowired
	public ArgumentPolicy(ObjectProvider<LiveConfiguration> live) {
		this.rulesOf = context -> {
			ConfigurationSnapshot snapshot = CallConfiguration.of(context);
			return of(snapshot != null ? snapshot : live.getObject().current());
		};
	}

	/** The policy of fixed {@code properties}, whatever a call's snapshot: for the interceptor test kit. */
	public ArgumentPolicy(RelayProperties properties) {
		Map<String, ServerRules> fixed = rules(properties);
		this.rulesOf = context -> fixed;
	}

	@Override
	public String partName() {
		return "argument rules";
	}

	/**
	 * Each server's prefix and injections, compiled from the snapshot's own servers: a server a reload added has its
	 * reserved prefix ({@code _} by default) from its first call, and a server removed then added again under the same
	 * id has only what it is now configured with.
	 */
	@Override
	public Map<String, ServerRules> compile(SnapshotCompilation compilation) {
		return rules(compilation.properties());
	}

	private static Map<String, ServerRules> rules(RelayProperties properties) {
		Map<String, ServerRules> rules = new HashMap<>();
		properties.servers().forEach((id, server) -> {
			if (server != null && (server.arguments().reserves() || !server.arguments().inject().isEmpty())) {
				rules.put(id, new ServerRules(server.arguments()));
			}
		});
		return Collections.unmodifiableMap(rules);
	}

	/** A server with a reserved prefix or injections in the snapshot; one without has no argument interceptor there. */
	@Override
	public boolean appliesTo(SnapshotCompilation compilation, String server, Stage<?> stage) {
		return compilation.part(this).containsKey(server);
	}

	@Override
	public String name() {
		return "arguments";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		ServerRules server = rulesOf.apply(call.context()).get(call.server());
		if (server == null) {
			return Outcome.proceed();
		}
		if (server.reserves()) {
			List<String> reserved = reservedOf(call, server);
			if (reserved != null) {
				log.info("Refused tools/call of {} on '{}': reserved argument keys {}", LogText.quote(call.toolName()),
						call.server(), LogText.list(reserved));
				return Outcome.reject(RejectError.invalidParams("Reserved argument keys not allowed: "
						+ String.join(", ", reserved)));
			}
		}
		for (Injection injection : server.injections()) {
			if (injection.tools().offers(call.toolName())) {
				Object value = injection.valueFor(call);
				if (value != null) {
					call.injectArgument(injection.name(), value);
				}
				else {
					call.removeArgument(injection.name());
				}
			}
		}
		return Outcome.proceed();
	}

	/** The reserved keys among {@code call}'s top-level arguments, in the order sent; {@code null} when none is. */
	private static List<String> reservedOf(ToolsCallRequest call, ServerRules server) {
		List<String> reserved = null;
		for (String name : call.argumentNames()) {
			if (server.isReserved(name)) {
				if (reserved == null) {
					reserved = new ArrayList<>(2);
				}
				reserved.add(name);
			}
		}
		return reserved;
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		ServerRules server = rulesOf.apply(list.context()).get(list.server());
		if (server != null && server.reserves()) {
			list.editInputSchemas((tool, schema) -> stripReserved(list.server(), server, tool, schema));
		}
		return Outcome.proceed();
	}

	/** Removes the reserved top-level properties and their {@code required} entries; whether anything went. */
	private boolean stripReserved(String serverId, ServerRules server, String tool, ObjectNode schema) {
		boolean changed = false;
		if (schema.get("properties") instanceof ObjectNode properties) {
			List<String> reserved = new ArrayList<>();
			properties.fieldNames().forEachRemaining(name -> {
				if (server.isReserved(name)) {
					reserved.add(name);
				}
			});
			for (String name : reserved) {
				properties.remove(name);
				warnIfNeverSupplied(serverId, server, tool, name);
			}
			changed = !reserved.isEmpty();
		}
		if (schema.get("required") instanceof ArrayNode required) {
			for (Iterator<JsonNode> names = required.elements(); names.hasNext();) {
				if (server.isReserved(names.next().asText())) {
					names.remove();
					changed = true;
				}
			}
		}
		return changed;
	}

	private void warnIfNeverSupplied(String serverId, ServerRules server, String tool, String name) {
		boolean supplied = server.injections()
			.stream()
			.anyMatch(injection -> injection.name().equals(name) && injection.tools().offers(tool));
		if (!supplied && warned.add(serverId + ' ' + tool + ' ' + name)) {
			log.warn("Tool {} of '{}' declares the reserved argument {}, which no arguments.inject entry "
					+ "supplies: clients cannot set it, so the tool will never get it", LogText.quote(tool), serverId,
					LogText.quote(name));
		}
	}

	/** One server's prefix and injections. */
	record ServerRules(String prefix, List<Injection> injections) {

		ServerRules(ArgumentsProperties arguments) {
			this(arguments.reservedPrefix(), arguments.inject().stream().map(Injection::new).toList());
		}

		boolean reserves() {
			return !prefix.isEmpty();
		}

		boolean isReserved(String name) {
			return reserves() && name.startsWith(prefix);
		}

	}

	/** One configured injection, with its tool globs compiled. */
	private record Injection(String name, String value, String fromRequestHeader, String fromCallerClaim,
			ToolNameFilter tools) {

		Injection(InjectedArgumentProperties properties) {
			this(properties.name(), properties.value(), properties.fromRequestHeader(), properties.fromCallerClaim(),
					new ToolNameFilter(new ToolsProperties(properties.tools(), List.of())));
		}

		/**
		 * The value to inject into {@code call}: the static value, the header's (a string), or the caller's claim (a
		 * string, number, boolean or list as the token has it); {@code null} when the header or claim is absent or
		 * blank.
		 */
		Object valueFor(ToolsCallRequest call) {
			if (value != null) {
				return value;
			}
			if (fromCallerClaim != null) {
				Object claim = call.context().caller().claim(fromCallerClaim);
				if (claim instanceof String || claim instanceof Number || claim instanceof Boolean
						|| claim instanceof java.util.Collection<?>) {
					return claim instanceof String text && text.isBlank() ? null : claim;
				}
				return call.context().caller().claimAsText(fromCallerClaim);
			}
			// one value: a request repeating the header with another one was refused (SingleValuedHeaders)
			String header = call.context().headers().getFirst(fromRequestHeader);
			return header == null || header.isBlank() ? null : header;
		}

	}

}
