package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SessionStoreKind;
import dev.mcprelay.proxy.OpenStreams;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.session.SessionKey;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Ends the member sessions of a virtual session that ended without its client's DELETE: it expired
 * ({@code sessions.idle-timeout}), it was evicted (its caller opened more than {@code sessions.max-per-caller}, or
 * the memory store was full), or another replica ended it. Every replica keeps the sessions whose members it joined
 * (with the caller and headers they were joined with), and the time it last served them; every {@link #period} it asks
 * the store, without renewing anything ({@link VirtualSessions#live}), about those it has not served for that long and
 * about every session with a merged GET stream here, and sends each member of a session the store no longer holds live (gone, or
 * marked ended by a reload on another replica) a DELETE, as the client's own DELETE would have, and ends the session's
 * streams here ({@link MergedStreams#end}; its members are not joined again). A request that finds its session gone
 * does the same at once. What is kept per session is its member sessions and a copy of the
 * joining request's headers, for as long as the store holds the session. With the memory store, the sessions end
 * with the process: shutdown sends every member session joined here its DELETE once the calls in flight have ended,
 * never under a call still running ({@link OpenStreams#atShutdown}). Each member session is ended on the settings it
 * was joined with (the joining request's snapshot); one whose server a reload has removed since (it left a
 * {@code members: ["*"]} virtual server) is sent nothing: its server left, and is never asked again (not on the
 * settings it had, nor counted as one more of its streams ended). Removed is judged by the server the session was
 * joined on ({@link Upstream#isRemoved}), not by its id: a server added again under the id, at another address, is
 * another server, which never held that session.
 */
@Component
class OrphanedMemberSessions implements DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(OrphanedMemberSessions.class);

	/** The most sessions asked about at once. */
	private static final int CONCURRENT_CHECKS = 16;

	private final MemberCalls calls;

	private final Duration period;

	private final Map<String, JoinedSession> tracked = new ConcurrentHashMap<>();

	private final ObjectProvider<MergedStreams> streams;

	private final Disposable sweeping;

	private final VirtualSessions sessions;

	private final UpstreamRegistry upstreams;

	private final VirtualSessionEnds ends;

	OrphanedMemberSessions(MemberCalls calls, RelayProperties properties,
			ObjectProvider<MergedStreams> streams, OpenStreams openStreams, VirtualSessions sessions,
			VirtualServers servers, UpstreamRegistry upstreams, VirtualSessionEnds ends) {
		this.ends = ends;
		this.upstreams = upstreams;
		this.calls = calls;
		this.streams = streams;
		this.sessions = sessions;
		this.period = period(properties.sessions().idleTimeout());
		this.sweeping = Flux.interval(period, period).onBackpressureDrop().concatMap(tick -> sweep(), 1).subscribe();
		if (properties.sessions().store() == SessionStoreKind.MEMORY) {
			openStreams.atShutdown(this::endAll);
		}
		servers.onRetired(this::retired);
	}

	/**
	 * With the memory store, the relay's sessions end with the process: each member session joined here is sent its
	 * DELETE at shutdown, once the calls in flight have ended or were cut ({@link OpenStreams#atShutdown}), rather than
	 * left open at the member until it expires there.
	 */
	private Mono<Void> endAll() {
		List<JoinedSession> all = List.copyOf(tracked.values());
		tracked.clear();
		if (!all.isEmpty()) {
			log.info("Shutting down: the {} virtual session(s) of this relay end with it; their member sessions are sent "
					+ "DELETE", all.size());
		}
		return Flux.fromIterable(all).flatMap(this::endMembers, CONCURRENT_CHECKS).then();
	}

	/** How often sessions not served here are asked about: half the idle timeout, between 1 s and 30 s. */
	static Duration period(Duration idleTimeout) {
		Duration half = idleTimeout.dividedBy(2);
		return half.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
				: half.compareTo(Duration.ofSeconds(30)) > 0 ? Duration.ofSeconds(30) : half;
	}

	/**
	 * {@code call} opened its session with {@code members}; on a version of the virtual server a reload has ended
	 * since the request began, the session ends at once ({@link #retired}), unless it carries on in the successor.
	 */
	void opened(VirtualCall call, String sessionId, Map<String, MemberSession> members) {
		JoinedSession entry = new JoinedSession(call.server(), sessionId, call.server().terms(), MemberOrigin.kept(call),
				members);
		tracked.put(key(call.server().id(), sessionId), entry);
		if (entry.server.version().isEnded()) {
			endOrCarryOn(entry, entry.server);
		}
	}

	/**
	 * A member joined the session of {@code server} stored with {@code terms} (late, or again) with {@code origin}'s
	 * request.
	 */
	void joined(VirtualServer server, String sessionId, String terms, MemberOrigin origin, String member,
			MemberSession session) {
		JoinedSession entry = tracked.computeIfAbsent(key(server.id(), sessionId),
				key -> new JoinedSession(server, sessionId, terms, origin, Map.of()));
		synchronized (entry) {
			entry.members.put(member, session);
			entry.joinedWith.put(member, origin);
		}
	}

	/**
	 * A reload removed or changed {@code server}: each session of that version joined here ends as a client's DELETE
	 * ends it (its stream here, a DELETE to each member), and the store keeps it as ended, so that its client's next
	 * request, on any replica, is answered 404 {@code session_ended} ({@link VirtualSessions#retire}); but one that
	 * carries on in the changed virtual server is kept, on the new version, unless the store says it ended meanwhile
	 * ({@link #endOrCarryOn}).
	 */
	private void retired(VirtualServer server) {
		List<JoinedSession> ofVersion = tracked.values().stream()
			.filter(entry -> entry.server.version() == server.version())
			.toList();
		List<JoinedSession> ending = ofVersion.stream()
			.filter(entry -> server.version().successorFor(entry.terms) == null)
			.toList();
		ofVersion.stream().filter(entry -> !ending.contains(entry)).forEach(entry -> endOrCarryOn(entry, server));
		if (!ending.isEmpty()) {
			log.info("Virtual server '{}': its {} session(s) joined here end ({}); their member sessions are sent DELETE",
					server.id(), ending.size(), server.version().endedBy());
		}
		retire(ending);
	}

	/**
	 * The version {@code entry}'s session ran on here ({@code on}'s) ended: the session ends ({@link #retire}), or
	 * carries on in the successor, as {@link VirtualSessionEnds} says (by its terms; for one that outlives them, once
	 * the store said whether another replica ended it meanwhile: the verdict its streams here follow too,
	 * {@link VirtualSessionEnds#follow}).
	 */
	private void endOrCarryOn(JoinedSession entry, VirtualServer on) {
		ends.follow(on, entry.sessionId, entry.terms, elsewhere -> {
			if (elsewhere) {
				log.info("Virtual server '{}': a session joined here that another replica ended meanwhile ends here too; "
						+ "its member sessions are sent DELETE", entry.virtualId);
			}
			retire(List.of(entry));
		}, entry::moveOn, next -> {
		});
	}

	private void retire(List<JoinedSession> ending) {
		Flux.fromIterable(ending)
			.filter(entry -> tracked.remove(key(entry.virtualId, entry.sessionId), entry))
			.flatMap(entry -> sessions.retire(entry.virtualId, entry.sessionId)
				.onErrorResume(error -> Mono.empty())
				.then(endMembers(entry)), CONCURRENT_CHECKS)
			.subscribe();
	}

	/** The session was served here now. */
	void used(String virtualId, String sessionId) {
		JoinedSession entry = tracked.get(key(virtualId, sessionId));
		if (entry != null) {
			entry.lastUse = System.nanoTime();
		}
	}

	/** The session's client ended it here (its members were sent DELETE). */
	void deleted(String virtualId, String sessionId) {
		tracked.remove(key(virtualId, sessionId));
	}

	/**
	 * A request found the session gone (expired, evicted, or ended on another replica): its streams here and the
	 * member sessions joined here end now. A replica that never joined a member of the session may still carry its
	 * streams (review 44q Q-L2): they end too.
	 */
	void gone(String virtualId, String sessionId) {
		ended(virtualId, sessionId).subscribe();
	}

	/** {@link #gone}, as a {@link Mono} that completes once the member sessions were sent their DELETE. */
	private Mono<Void> ended(String virtualId, String sessionId) {
		JoinedSession entry = tracked.remove(key(virtualId, sessionId));
		if (entry != null) {
			return endMembers(entry);
		}
		streams.getObject().end(virtualId, sessionId);
		return Mono.empty();
	}

	/** The sessions kept; for tests. */
	int size() {
		return tracked.size();
	}

	/**
	 * One tick: asks the store whether each session joined here and not served for a period, and each session with a
	 * merged GET stream here, is still live ({@link VirtualSessions#live}: held, and not marked ended by a reload on any replica);
	 * each that is not ends here as {@link #gone} says. A session with a merged GET stream here is asked at every tick,
	 * served or not: its stream is not a request, and nothing else here would learn that another replica ended it
	 * (review 44q Q-L2; a call streaming through a member of a session joined on another replica is not ended so,
	 * review 44s S-L1). A store that cannot answer leaves the session as it is until the next tick.
	 */
	private Mono<Void> sweep() {
		long now = System.nanoTime();
		Flux<SessionKey> idleJoined = Flux.fromIterable(tracked.values())
			// one that expired is found by the first tick after a period without a request
			.filter(entry -> now - entry.lastUse >= period.toNanos())
			.map(entry -> new SessionKey(entry.virtualId, entry.sessionId));
		Flux<SessionKey> streaming = Flux.defer(() -> Flux.fromIterable(streams.getObject().streaming()));
		return Flux.concat(idleJoined, streaming)
			.distinct()
			.flatMap(session -> sessions.live(session.server(), session.id())
				.flatMap(live -> live ? Mono.<Void>empty() : ended(session.server(), session.id()))
				.onErrorResume(error -> Mono.empty()), CONCURRENT_CHECKS)
			.then();
	}

	private Mono<Void> endMembers(JoinedSession entry) {
		Map<String, MemberSession> members;
		Map<String, MemberOrigin> joinedWith;
		synchronized (entry) {
			// in the order they were joined (a Map.copyOf's order changes from one JVM to the next)
			members = new LinkedHashMap<>(entry.members);
			joinedWith = Map.copyOf(entry.joinedWith);
		}
		log.debug("Virtual server '{}': a session ended without its client's DELETE (expired, evicted, or ended "
				+ "elsewhere); its stream here and its {} member session(s) are ended", entry.virtualId, members.size());
		streams.getObject().end(entry.virtualId, entry.sessionId);
		return Flux.fromIterable(members.entrySet())
			.filter(member -> member.getValue().sessionId() != null)
			.filter(member -> stillServed(joinedWith.getOrDefault(member.getKey(), entry.origin), member.getKey()))
			.flatMap(member -> calls
				.send(joinedWith.getOrDefault(member.getKey(), entry.origin), member.getKey(), HttpMethod.DELETE,
						member.getValue(), null, null, () -> {
						})
				.flatMap(MemberAnswer::discard)
				.onErrorResume(error -> Mono.empty()))
			.then();
	}

	/**
	 * Whether the server {@code member}'s session was joined on ({@code origin}'s) is still configured: one a reload
	 * removed left for good, also when a server was added again under its id since.
	 */
	private boolean stillServed(MemberOrigin origin, String member) {
		Upstream joinedOn = upstreams.in(origin.configuration()).find(member);
		return joinedOn != null && !joinedOn.isRemoved();
	}

	@Override
	public void destroy() {
		sweeping.dispose();
	}

	private static String key(String virtualId, String sessionId) {
		return virtualId + '\n' + sessionId;
	}

}
