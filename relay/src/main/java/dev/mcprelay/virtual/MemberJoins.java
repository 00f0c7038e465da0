package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import reactor.core.publisher.Mono;

/**
 * Joins a member to a virtual session after the session began: a member that was unavailable when the client
 * initialized, or one that no longer knows the session it had ({@link MemberSessionLost}: it restarted). The member
 * gets the client's own {@code initialize} and {@code notifications/initialized} again ({@link MemberJoin}); its new
 * session is kept in the virtual session ({@link VirtualSessions}, so every replica uses it), its stream joins the
 * client's here ({@link MergedStreams#joined}), and what the relay kept of its lists is dropped.
 *
 * <p>One join at a time per member and session on this replica: every request that finds the same session lost (or
 * the member not joined) waits for the one join, and one that comes shortly after gets its outcome
 * ({@link #RECENT}); a join that failed is tried again by the next request. (Replicas do not coordinate: two that find
 * the member's session lost at the same instant may each join it; the later one's session is kept, the other's is left
 * to expire at the member.)
 *
 * <p>A member joined again is told to the client: a {@code notifications/message} at level {@code warning} naming
 * it, and {@code notifications/<list>/list_changed} for each list it offers (a restarted member's lists may differ), on
 * the client's GET stream here when one is attached, else with the answer of the request that joined it.
 */
@Component
class MemberJoins {

	private static final Logger log = LoggerFactory.getLogger(MemberJoins.class);

	/** How long the outcome of a join answers a request that found the same session lost. */
	static final Duration RECENT = Duration.ofMinutes(1);

	private final MemberJoin join;

	private final VirtualSessions sessions;

	private final ListCache listCache;

	private final ObjectProvider<MergedStreams> streams;

	private final OrphanedMemberSessions orphans;

	private final AsyncCache<String, Joined> joins = Caffeine.newBuilder()
		.expireAfterWrite(RECENT)
		.maximumSize(10_000)
		.buildAsync();

	MemberJoins(MemberJoin join, VirtualSessions sessions, ListCache listCache, ObjectProvider<MergedStreams> streams,
			OrphanedMemberSessions orphans) {
		this.join = join;
		this.sessions = sessions;
		this.listCache = listCache;
		this.streams = streams;
		this.orphans = orphans;
	}

	/**
	 * A member's new session in a virtual session, and what to tell the client about it with the answer of the
	 * request that joined it ({@code by}), if no stream of the client's here took it.
	 */
	record Joined(MemberSession session, List<ObjectNode> notices, Object by) {

		/**
		 * What request {@code token} tells the client: the notices when it joined the member, else nothing; notices
		 * the session's own stream joined the member with and could not tell ({@link Untold}) go with the first
		 * request that waited on the same join (a call to the member that found its session lost too).
		 */
		List<ObjectNode> noticesFor(Object token) {
			if (by instanceof Untold untold) {
				return untold.taken().compareAndSet(false, true) ? notices : List.of();
			}
			return by == token ? notices : List.of();
		}

	}

	/**
	 * The joiner of notices that the session's own stream joined a member with and that no GET took: the attached one
	 * may not read the member (review 44p P-L2); the first request that shares the join carries them.
	 */
	private record Untold(AtomicBoolean taken) {
	}

	/**
	 * Joins {@code member} to {@code session} in place of {@code previous} ({@link MemberSession#NONE}: it was never
	 * joined), or waits for the join already under way; fails with {@link MemberUnavailable}.
	 *
	 * @param token the request's own object, which gets the notices when it is the one that joins
	 */
	Mono<Joined> join(VirtualServer server, VirtualSession session, MemberOrigin origin, String member,
			MemberSession previous, Object token) {
		String key = server.id() + '\n' + session.id() + '\n' + member + '\n'
				+ (previous.sessionId() == null ? "" : previous.sessionId());
		return Mono.defer(() -> {
			// the join starts once the cache holds its future, outside the cache's own lock
			AtomicReference<CompletableFuture<Joined>> started = new AtomicReference<>();
			CompletableFuture<Joined> shared = joins.get(key, (k, executor) -> {
				CompletableFuture<Joined> future = new CompletableFuture<>();
				started.set(future);
				return future;
			});
			CompletableFuture<Joined> mine = started.get();
			if (mine != null) {
				joining(server, session, origin, member, previous, token).subscribe(mine::complete,
						mine::completeExceptionally);
			}
			return Mono.fromFuture(shared, true);
		});
	}

	private Mono<Joined> joining(VirtualServer server, VirtualSession session, MemberOrigin origin, String member,
			MemberSession previous, Object token) {
		boolean again = previous.sessionId() != null;
		// a session that ended meanwhile (expired, evicted, ended elsewhere, or its virtual server's settings by a
		// reload here or on another replica) gets no member session to leave behind
		return sessions.live(server.id(), session.id())
			.map(exists -> exists && SessionServer.runningFor(server, session.terms()) != null)
			.flatMap(exists -> exists ? Mono.just(session) : Mono.fromRunnable(
				() -> streams.getObject().end(server.id(), session.id()))
			.then(Mono.error(new MemberUnavailable(member, "belongs to a session that ended"))))
			// the level the client asked for since this request read its session, if it did
			.flatMap(live -> sessions.loggingLevel(server.id(), session.id()).defaultIfEmpty(""))
			.flatMap(level -> join.join(origin, member, session.initialize(), level.isEmpty() ? null : level))
			.flatMap(joined -> sessions.join(server.id(), session.id(), member, joined.session())
				.then(Mono.defer(() -> {
					orphans.joined(server, session.id(), session.terms(), origin, member, joined.session());
					List<ObjectNode> notices = again ? notices(member, joined.result()) : List.of();
					if (again) {
						listCache.changed(member, null);
						log.info("Virtual server '{}': member '{}' no longer knew its session (it restarted?) and was "
								+ "joined again", server.id(), member);
					}
					return streams.getObject()
						.joined(server.id(), session.id(), member, joined.session(), notices, token)
						.map(told -> new Joined(joined.session(), told ? List.of() : notices,
								!told && token instanceof MergedSession ? new Untold(new AtomicBoolean()) : token));
				})));
	}

	/** What the client is told of a member joined again: a warning, and that each list it offers may differ. */
	private static List<ObjectNode> notices(String member, ObjectNode initializeResult) {
		List<ObjectNode> notices = new ArrayList<>();
		ObjectNode warning = JsonRpcParser.mapper().createObjectNode();
		warning.put("jsonrpc", "2.0");
		warning.put("method", "notifications/message");
		ObjectNode params = warning.putObject("params");
		params.put("level", "warning");
		params.put("logger", "mcp-relay");
		params.put("data", "Member '" + member + "' had lost its session (it restarted?) and was joined again; a "
				+ "request it was working on may have been lost, and its tools, prompts and resources may have changed.");
		notices.add(warning);
		MemberLists.of(initializeResult).forEach(list -> notices.add(MemberLists.listChanged(list)));
		return notices;
	}

}
