package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.Objects;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Pages of members' lists a virtual server asks for on its own account: to find which member published a name or URI
 * (in a session), and every list of a 2026-07-28 client (which has no session, so each request would otherwise ask
 * every member again). Kept per caller, session, member, method and cursor, never shared between callers, for at most
 * {@link #MAX_AGE}, and dropped as soon as the member says that list changed ({@code notifications/*}{@code
 * /list_changed}). Lists a 2025 client asks for in its session are always asked of the members.
 */
@Component
class ListCache {

	/** The longest a page is kept without the member saying its list changed. */
	static final Duration MAX_AGE = Duration.ofSeconds(30);

	/** One page as asked. */
	record Key(String callerId, String sessionId, String member, String method, String cursor) {
	}

	private final Cache<Key, ObjectNode> pages = Caffeine.newBuilder()
		.expireAfterWrite(MAX_AGE)
		.maximumSize(10_000)
		.build();

	/** The member's response kept for {@code key}, or {@code null}. */
	ObjectNode find(Key key) {
		return pages.getIfPresent(key);
	}

	void keep(Key key, ObjectNode response) {
		pages.put(key, response);
	}

	/** Forgets {@code member}'s pages of list {@code method} ({@code null}: every list). */
	void changed(String member, String method) {
		pages.asMap().keySet().removeIf(key -> key.member().equals(member)
				&& (method == null || Objects.equals(key.method(), method)));
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
