package dev.mcprelay.interceptors.toolsearch;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.ToolSearchProperties;
import dev.mcprelay.config.ToolsProperties;
import dev.mcprelay.policy.ToolNameFilter;
import dev.mcprelay.policy.UpstreamView;

/**
 * One server that offers its tools through search ({@link ToolSearchPolicy}), as one configuration snapshot configures
 * it: its settings, meters and catalogues, one per view, sharing the server's generation (one more for each
 * {@code list_changed}), kept among every catalogue tool search keeps. A snapshot whose server is unchanged keeps the
 * same object (its catalogues and their indexes); a changed server is a new one, whose catalogues are listed and
 * indexed anew (the previous one's are dropped when the new snapshot is current, {@link #invalidate}).
 *
 * @param id the server's id
 * @param properties the server's settings
 * @param settings its {@code tool-search}
 * @param pinned the tools of {@code always-expose}, or {@code null}
 * @param generation one more for each {@code list_changed} (and for the server's replacement)
 * @param catalogues where the catalogues are kept
 * @param meters the server's tool search meters
 */
record SearchedServer(String id, ServerProperties properties, ToolSearchProperties settings, ToolNameFilter pinned,
		AtomicLong generation, KeptCatalogues catalogues, ToolSearchMeters meters) {

	SearchedServer(String id, ServerProperties properties, ToolSearchMeters meters, KeptCatalogues catalogues) {
		this(id, properties, properties.toolSearch(), properties.toolSearch().alwaysExpose().isEmpty() ? null
				: new ToolNameFilter(new ToolsProperties(properties.toolSearch().alwaysExpose(), List.of())),
				new AtomicLong(), catalogues, meters);
	}

	/** Where one view's catalogue of a server is kept among every catalogue tool search keeps. */
	private record ServerView(SearchedServer server, UpstreamView view) {
	}

	/** The catalogue of the view the request of {@code context} has. */
	ToolCatalogue<ToolIndex> catalogue(CallContext context) {
		return catalogues.get(new ServerView(this, UpstreamView.of(context, properties)),
				() -> ToolCatalogue.indexed(generation));
	}

	/** The server's tools changed, or the server did: every view's catalogue is stale, and what is being listed too. */
	void invalidate() {
		generation.incrementAndGet();
		catalogues.invalidateIf(key -> key instanceof ServerView kept && kept.server() == this);
	}

	/** Whether the server's {@code tool} is one search may return: any but one named like the relay's own. */
	boolean offers(String tool) {
		return !ToolSearchPolicy.SEARCH_TOOL.equals(tool);
	}

	boolean alwaysExposed(String tool) {
		return pinned != null && pinned.offers(tool) && offers(tool);
	}

	@Override
	public boolean equals(Object other) {
		return this == other;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this);
	}

	@Override
	public String toString() {
		return "SearchedServer[" + id + "]";
	}

}
