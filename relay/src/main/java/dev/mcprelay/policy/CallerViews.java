package dev.mcprelay.policy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.ServerProperties;

/**
 * Each caller's view of each server ({@link UpstreamView}) where nothing of its request can change it, made once and
 * not on every request (its digest is a SHA-256): a server none of whose configured headers comes from a request
 * header, in a request whose interceptors set or removed no upstream header. The view is then the server's
 * properties and the caller alone; any other request's view is made as before ({@link UpstreamView#of}).
 *
 * <p>Kept by the caller object itself, held weakly (the front door makes one {@link Caller} per API key and one per
 * token it accepted and keeps), and by the server's properties as an object (those of one configuration snapshot: a
 * reload that changes a server gives it a new one), at most {@value #MAX_CALLERS} callers, those used least recently
 * forgotten first. A view holds only a digest: nothing of the caller is kept here. Thread-safe.
 */
final class CallerViews {

	static final int MAX_CALLERS = 4_096;

	/** One server's properties, and the caller's view of that server. */
	private record Known(ServerProperties properties, UpstreamView view) {
	}

	private final Cache<Caller, Map<String, Known>> kept = Caffeine.newBuilder()
		.weakKeys()
		.maximumSize(MAX_CALLERS)
		.executor(Runnable::run)
		.build();

	/** The view of {@code server} (the properties of the server {@code context} addresses) the request has. */
	UpstreamView of(CallContext context, ServerProperties server) {
		Caller caller = context.caller();
		if (caller == null || server == null || !context.upstreamHeaders().isEmpty() || fromRequest(server)) {
			return UpstreamView.of(context, server);
		}
		Map<String, Known> byServer = kept.get(caller, any -> new ConcurrentHashMap<>());
		Known known = byServer.get(context.server());
		if (known != null && known.properties() == server) {
			return known.view();
		}
		UpstreamView view = UpstreamView.of(context, server);
		byServer.put(context.server(), new Known(server, view));
		return view;
	}

	/** Whether a header the relay sends {@code server} takes its value from a header of the request. */
	private static boolean fromRequest(ServerProperties server) {
		for (HeaderProperties header : server.headers()) {
			if (header.value() == null && header.fromCallerClaim() == null) {
				return true;
			}
		}
		return false;
	}

}
