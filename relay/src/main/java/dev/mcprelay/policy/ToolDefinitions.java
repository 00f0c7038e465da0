package dev.mcprelay.policy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.proxy.UpstreamToolLister;
import reactor.core.publisher.Mono;

/**
 * The tools each server published, as far as policies need them: each tool's {@code annotations}, so that a rule that
 * reads them ({@code mcp.tool.annotations.readOnlyHint}) decides a call from the definition the server published, not
 * from anything the caller sends. Kept from every {@code tools/list} answer that passes the relay for a server such a
 * rule governs (the latest wins), forgotten when the server says its tools changed, and, for a call of a tool not
 * seen yet, read by listing the server's tools on the caller's behalf ({@link UpstreamToolLister}). A tool the relay
 * still does not know is decided without a definition, which fails closed.
 *
 * <p>At most {@value #MAX_TOOLS} tools per server are kept; past it the server's tools are forgotten and read again.
 */
@Component
public class ToolDefinitions {

	private static final Logger log = LoggerFactory.getLogger(ToolDefinitions.class);

	static final int MAX_TOOLS = 10_000;

	private final Map<String, Map<String, Map<String, Object>>> byServer = new ConcurrentHashMap<>();

	private final UpstreamToolLister lister;

	private final UpstreamRegistry upstreams;

	ToolDefinitions(UpstreamToolLister lister, UpstreamRegistry upstreams) {
		this.lister = lister;
		this.upstreams = upstreams;
	}

	/** Keeps the definition of {@code tool}, one entry of a {@code tools/list} answer of {@code server}. */
	public void published(String server, JsonNode tool) {
		if (!tool.path("name").isTextual()) {
			return;
		}
		Map<String, Map<String, Object>> tools = byServer.computeIfAbsent(server, any -> new ConcurrentHashMap<>());
		if (tools.size() >= MAX_TOOLS) {
			tools.clear();
		}
		tools.put(tool.get("name").textValue(), annotationsOf(tool));
	}

	/** {@code server} said its tools changed: what was kept of them is forgotten. */
	public void changed(String server) {
		byServer.remove(server);
	}

	/** The annotations {@code server} published for {@code tool}, or {@code null} when the relay has not seen it. */
	public Map<String, Object> annotations(String server, String tool) {
		Map<String, Map<String, Object>> tools = byServer.get(server);
		return tools == null ? null : tools.get(tool);
	}

	/**
	 * The annotations of {@code tool} on the server {@code context} addresses: as kept, or read now by listing the
	 * server's tools in the caller's session (within {@code bound}); empty when the server does not list it or cannot
	 * be asked.
	 */
	public Mono<Map<String, Object>> annotations(CallContext context, String tool, Duration bound) {
		Map<String, Object> known = annotations(context.server(), tool);
		if (known != null) {
			return Mono.just(known);
		}
		Upstream upstream = upstreams.find(context.server());
		if (upstream == null) {
			return Mono.empty();
		}
		return lister.listAll(upstream, SpringRequestHeaders.toHttpHeaders(context.headers()), context.caller(),
				context.upstreamHeaders())
			.timeout(bound)
			.doOnNext(tools -> tools.forEach(definition -> published(context.server(), definition)))
			.flatMap(tools -> Mono.justOrEmpty(annotations(context.server(), tool)))
			.onErrorResume(failure -> {
				log.debug("The tools of server '{}' could not be listed for a policy", context.server(), failure);
				return Mono.empty();
			});
	}

	/** A tool's published {@code annotations}, as CEL values; empty when it has none. */
	public static Map<String, Object> annotationsOf(JsonNode tool) {
		return CelValues.fieldsOf(tool.get("annotations"));
	}

}
