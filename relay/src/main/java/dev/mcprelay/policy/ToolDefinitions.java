package dev.mcprelay.policy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.config.ServerProperties;
import reactor.core.publisher.Mono;

/**
 * The tools each server published, per view of it ({@link UpstreamView}), as far as policies need them: each tool's
 * {@code annotations}, so that a rule that reads them ({@code mcp.tool.annotations.readOnlyHint}) decides a call from
 * the definition the server published to the caller's own view, never from what it told another caller, nor from
 * anything the caller sends. Kept from every {@code tools/list} answer that passes the relay for a server such a rule
 * governs (the latest wins), forgotten when the server says its tools changed, and, for a call of a tool the view has
 * not seen, read by listing the server's tools in the caller's request ({@link Lister}): at most once per
 * catalogue (until the server says its tools changed), one listing per view at a time. A tool the relay still does
 * not know is {@code empty}: the server did not publish it, and the caller answers as it would (fails closed).
 *
 * <p>At most {@value PublishedTools#MAX_TOOLS} tools per view and {@value #MAX_KEPT} over all views are kept; the views
 * used least recently are forgotten first, and read again when needed.
 */
public class ToolDefinitions {

	private static final Logger log = LoggerFactory.getLogger(ToolDefinitions.class);

	/** The most definitions kept over every view of every server. */
	static final long MAX_KEPT = 100_000;

	private final Cache<UpstreamView, PublishedTools> views = Caffeine.newBuilder()
		.maximumWeight(MAX_KEPT)
		.weigher((UpstreamView view, PublishedTools tools) -> 1 + tools.size())
		.executor(Runnable::run)
		.build();

	private final Lister lister;

	private final Function<String, ServerProperties> servers;

	/**
	 * @param lister how the relay lists a server's whole catalogue in a caller's request
	 * @param servers each configured server's properties by id ({@code null} for an unknown id): what tells its views
	 * apart
	 */
	public ToolDefinitions(Lister lister, Function<String, ServerProperties> servers) {
		this.lister = lister;
		this.servers = servers;
	}

	/** Lists every tool of the server a request addresses, in that request (its session, caller and headers). */
	@FunctionalInterface
	public interface Lister {

		/**
		 * Every tool of the server {@code context} addresses, as the server sent them; bounded in time by the lister,
		 * an error when the server cannot be asked.
		 */
		Mono<List<JsonNode>> listAll(CallContext context);

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
	 * read now by listing the server's tools in the caller's request when the view's catalogue was not listed whole
	 * yet; empty when the server did not publish it, or cannot be asked.
	 */
	public Mono<Optional<Map<String, Object>>> annotations(CallContext context, String tool) {
		UpstreamView view = viewOf(context);
		PublishedTools kept = views.get(view, any -> new PublishedTools());
		Map<String, Object> known = kept.annotations(tool);
		if (known != null || kept.complete()) {
			return Mono.just(Optional.ofNullable(known));
		}
		return kept.list(() -> lister.listAll(context))
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
		return UpstreamView.of(context, servers.apply(context.server()));
	}

	/** A tool's published {@code annotations}, as CEL values; empty when it has none. */
	public static Map<String, Object> annotationsOf(JsonNode tool) {
		return CelValues.fieldsOf(tool.get("annotations"));
	}

}
