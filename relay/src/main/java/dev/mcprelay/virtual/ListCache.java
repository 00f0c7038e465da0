package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.NoSuchList;
import dev.mcprelay.policy.UpstreamView;
import reactor.core.publisher.Mono;

/**
 * Pages of members' lists a virtual server asks for on its own account: to find which member published a name or URI
 * ({@link PublishedNames}, tool search), and every list of a 2026-07-28 client (which has no session, so each request
 * would otherwise ask every member again). Kept per virtual server, view of the member ({@link MemberViews}: the
 * caller and the values of the member's headers that differ per caller or request), method and cursor, never shared
 * between callers, nor between two views of one caller, nor between two virtual servers, and shared by a caller's
 * sessions in one view (one list per view, not one per session), for at most {@link #MAX_AGE}, dropped
 * as soon as the member says that list changed ({@code notifications/*}{@code /list_changed}). Kept as the member's
 * JSON, at most {@link #MAX_BYTES} of it in all, the least recently used page going first. A page is kept whole: the
 * member's page as it publishes it to the view, asked as the virtual server's own listing
 * ({@link VirtualCall#forCatalogue()}), never after one request's policies, which may read what differs between two
 * requests in one view (a token's scopes and claims, a request header); each request that reads it is answered what
 * its own policies let it use ({@link MemberListPolicies}). Lists a 2025 client asks for in its session are always
 * asked of the members, whose relays decide them for the request.
 */
@Component
class ListCache {

	/** The longest a page is kept without the member saying its list changed. */
	static final Duration MAX_AGE = Duration.ofSeconds(30);

	/** The most JSON kept, all pages together. */
	static final long MAX_BYTES = 16L * 1024 * 1024;

	/** One page as asked: through a virtual server, in a view of a member ({@link MemberViews}), of one of its lists. */
	record Key(String virtualServer, UpstreamView view, String method, String cursor) {

		/** The member whose page it is. */
		String member() {
			return view.server();
		}

	}

	private final Cache<Key, byte[]> pages = Caffeine.newBuilder()
		.expireAfterWrite(MAX_AGE)
		.maximumWeight(MAX_BYTES)
		.<Key, byte[]>weigher((key, page) -> page.length)
		.build();

	/** Who else keeps what a member lists, told when a member says a list changed. */
	private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

	/** Pages being asked for now: whoever wants one meanwhile waits for the same answer. */
	private final Map<Key, Mono<MemberRequests.Reply>> asking = new ConcurrentHashMap<>();

	/**
	 * The member's response for {@code key}: the one kept, or the one {@code ask} gets (one request at a time per page;
	 * kept when it is a result, or says the member has no such list, {@link NoSuchList}, which is kept as a result is
	 * for {@link #MAX_AGE}: not kept, it was asked again at every {@code resources/read} the virtual server routed,
	 * review 43j N-4). Any other error is not kept: the next request asks again.
	 */
	Mono<MemberRequests.Reply> get(Key key, Supplier<Mono<MemberRequests.Reply>> ask) {
		return Mono.defer(() -> {
			byte[] page = pages.getIfPresent(key);
			if (page != null) {
				return Mono.just(new MemberRequests.Reply(MemberMessages.parse(page), List.of()));
			}
			AtomicReference<Mono<MemberRequests.Reply>> created = new AtomicReference<>();
			return asking.computeIfAbsent(key, k -> {
				Mono<MemberRequests.Reply> once = ask.get().doOnNext(reply -> {
					if (reply.response().get("result") instanceof ObjectNode || NoSuchList.saidBy(reply.response())) {
						pages.put(key, JsonRpcErrors.toBytes(reply.response()));
					}
				}).doFinally(signal -> asking.remove(key, created.get())).cache();
				created.set(once);
				return once;
			});
		});
	}

	/** Forgets {@code member}'s pages of list {@code method} ({@code null}: every list), and tells the listeners. */
	void changed(String member, String method) {
		pages.asMap().keySet().removeIf(key -> key.member().equals(member)
				&& (method == null || Objects.equals(key.method(), method)));
		listeners.forEach(listener -> listener.accept(member, method));
	}

	/** Calls {@code listener} with the member and list method ({@code null}: every list) of each change. */
	void onChange(BiConsumer<String, String> listener) {
		listeners.add(listener);
	}

	/** The JSON bytes kept now; for tests. */
	long bytes() {
		return pages.asMap().values().stream().mapToLong(page -> page.length).sum();
	}

	/**
	 * The list method a {@code notifications/<list>/list_changed} notification is about, or {@code null} for every list
	 * of the member (a change of resources may change their templates too).
	 */
	static String listOf(String notification) {
		return switch (notification) {
			case "notifications/tools/list_changed" -> "tools/list";
			case "notifications/prompts/list_changed" -> "prompts/list";
			default -> null;
		};
	}

}
