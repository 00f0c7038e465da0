package dev.mcprelay.interceptors;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import reactor.core.publisher.Mono;

/**
 * The tool allow/deny lists of {@code mcp-relay.servers.<id>.tools}: a tool a server's lists do not offer vanishes
 * from its tools/list answers (JSON and SSE alike; the other tools are relayed exactly as received), and a
 * tools/call of it is refused with -32602, as MCP answers an unknown tool, before anything goes upstream. Servers
 * without lists are not touched.
 *
 * <p>It runs before interceptors of default order ({@link #ORDER}), so that they see only the tools offered.
 */
@Component
public class ToolAccessPolicy implements ToolsCallRequestInterceptor, ToolsListResponseInterceptor, Ordered {

	/** Early, so that later interceptors never see a hidden tool. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

	private final Map<String, ToolNameFilter> filters = new HashMap<>();

	/** Servers whose tools are found through tool search: its own tool is always offered there. */
	private final Set<String> searching = new HashSet<>();

	public ToolAccessPolicy(RelayProperties properties) {
		properties.servers().forEach((id, server) -> {
			if (server != null && server.tools().restricts()) {
				filters.put(id, new ToolNameFilter(server.tools()));
			}
			if (server != null && server.toolSearch().enabled()) {
				searching.add(id);
			}
		});
	}

	@Override
	public boolean appliesTo(String server) {
		return filters.containsKey(server);
	}

	@Override
	public String name() {
		return "tool-access";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		ToolNameFilter filter = filters.get(call.server());
		if (filter == null || filter.offers(call.toolName())
				|| (searching.contains(call.server()) && ToolSearchPolicy.SEARCH_TOOL.equals(call.toolName()))) {
			return Outcome.proceed();
		}
		return Outcome.reject(RejectError.invalidParams(
				"Unknown tool: " + call.toolName() + ". Server '" + call.server() + "' does not offer it through this relay."));
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		ToolNameFilter filter = filters.get(list.server());
		if (filter != null) {
			list.removeToolsIf(tool -> !filter.offers(tool.name()));
		}
		return Outcome.proceed();
	}

}
