package dev.mcprelay.policy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.proxy.UpstreamToolLister;
import reactor.core.publisher.Mono;

/**
 * The tools each server published, per view of it ({@link UpstreamView}), as far as policies need them: each tool's
 * {@code annotations}, so that a rule that reads them ({@code mcp.tool.annotations.readOnlyHint}) decides a call from
 * the definition the server published to the caller's own view, never from what it told another caller, nor from
 * anything the caller sends. Kept from every {@code tools/list} answer that passes the relay for a server such a rule
 * governs (the latest wins), forgotten when the server says its tools changed, and, for a call of a tool the view has
 * not seen, read by listing the server's tools in the caller's request ({@link UpstreamToolLister}): at most once per
 * catalogue (until the server says its tools changed), one listing per view at a time. A tool the relay still does
 * not know is {@code empty}: the server did not publish it, and the caller answers as it would (fails closed).
 *
 * <p>At most {@value PublishedTools#MAX_TOOLS} tools per view and {@value #MAX_KEPT} over all views are kept; the views
 * used least recently are forgotten first, and read again when needed.
 */
@Component
public class ToolDefinitions {

	private static final Logger log = LoggerFactory.getLogger(ToolDefinitions.class);

	/** The most definitions kept over every view of every server. */
	static final long MAX_KEPT = 100_000;

	private final Cache<UpstreamView, PublishedTools> views = Caffeine.newBuilder()
		.maximumWeight(MAX_KEPT)
		.weigher((UpstreamView view, PublishedTools tools) -> 1 + tools.size())
		.executor(Runnable::run)
		.build();

	private final UpstreamToolLister lister;

	private final UpstreamRegistry upstreams;

	ToolDefinitions(UpstreamToolLister lister, UpstreamRegistry upstreams) {
		this.lister = lister;
		this.upstreams = upstreams;
	}

	/** Keeps the definitions of {@code tools}, entries of a {@code tools/list} answer in the request of {@code context}. */
	public void published(CallContext context, List<JsonNode> tools) {
		if (tools.isEmpty()) {
			return;
		}
		UpstreamView view = viewOf(context);
		PublishedTools kept = views.get(view, any -> new PublishedTools());
		tools.forEach(kept::published);
		views.put(view, kept); // weighed again
	}

	/** {@code server} said its tools changed: what was kept of them, in every view, is forgotten. */
	public void changed(String server) {
		views.asMap().keySet().removeIf(view -> view.server().equals(server));
	}

	/**
	 * The annotations of {@code tool} as the server {@code context} addresses published them to its view: as kept, or
	 * read now by listing the server's tools in the caller's request (within {@code bound}); empty when the server
	 * does not list it or cannot be asked.
	 */
	public Mono<Optional<Map<String, Object>>> annotations(CallContext context, String tool, Duration bound) {
		UpstreamView view = viewOf(context);
		PublishedTools kept = views.get(view, any -> new PublishedTools());
		Map<String, Object> known = kept.annotations(tool);
		if (known != null || kept.complete()) {
			return Mono.just(Optional.ofNullable(known));
		}
		Upstream upstream = upstreams.find(context.server());
		if (upstream == null) {
			return Mono.just(Optional.empty());
		}
		return kept.list(() -> lister.listAll(upstream, SpringRequestHeaders.toHttpHeaders(context.headers()),
				context.caller(), context.upstreamHeaders()).timeout(bound))
			.then(Mono.fromSupplier(() -> {
				views.put(view, kept); // weighed again
				return Optional.ofNullable(kept.annotations(tool));
			}))
			.onErrorResume(failure -> {
				log.debug("The tools of server '{}' could not be listed for a policy", context.server(), failure);
				return Mono.just(Optional.empty());
			});
	}

	private UpstreamView viewOf(CallContext context) {
		Upstream upstream = upstreams.find(context.server());
		return UpstreamView.of(context, upstream == null ? null : upstream.properties());
	}

	/** A tool's published {@code annotations}, as CEL values; empty when it has none. */
	public static Map<String, Object> annotationsOf(JsonNode tool) {
		return CelValues.fieldsOf(tool.get("annotations"));
	}

}
