package dev.mcprelay.interceptors.toolsearch;

import java.util.List;
import java.util.function.Supplier;

import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One server's whole tool catalogue, indexed for search; shared by every session of the server. Filled from a
 * complete {@code tools/list} answer, or by listing every page when none is at hand; dropped when the server says
 * its tools changed ({@code notifications/tools/list_changed}), to be listed again on next use.
 */
final class ToolCatalogue {

	private volatile ToolIndex index;

	/** The catalogue, listed with {@code lister} when it is not known. */
	Mono<ToolIndex> get(Supplier<Mono<List<McpSchema.Tool>>> lister) {
		ToolIndex current = index;
		return current != null ? Mono.just(current) : lister.get().flatMap(this::update);
	}

	/**
	 * The catalogue is now {@code tools}: indexed off the event loop (a large catalogue takes tens of milliseconds),
	 * unless it is the catalogue already held.
	 */
	Mono<ToolIndex> update(List<McpSchema.Tool> tools) {
		ToolIndex current = index;
		if (current != null && current.tools().equals(tools)) {
			return Mono.just(current);
		}
		return Mono.fromCallable(() -> {
			ToolIndex updated = new ToolIndex(tools);
			index = updated;
			return updated;
		}).subscribeOn(Schedulers.parallel());
	}

	/** The server's tools changed: list them again on next use. */
	void invalidate() {
		index = null;
	}

}
