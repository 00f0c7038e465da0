package dev.mcprelay.virtual;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.sse.SseEventWriter;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

/**
 * One virtual session's server-to-client stream on this replica: every member's stream ({@link MemberStream}) merged
 * in one serial step that gives each event its id, so that an id names exactly the events the client received before
 * it, and held for the client until its GET takes them.
 *
 * <ul>
 * <li><b>Held from the join.</b> A session begins when the client's {@code notifications/initialized} has reached
 * the members ({@link MergedStreams#hold}), before the client may call anything, or when the client's GET finds none
 * here. What the members send waits in the session ({@link HeldEvents}, bounded: past the bound a member's stream is
 * read no further until the client takes some, and its member's relay applies {@code timeouts.client-write} to a
 * client that reads too slowly).</li>
 * <li><b>Attached.</b> The client's GET takes what was held, then the rest as it comes, at its own pace. A second GET
 * replaces the first. A member joined later (or joined again) gets its stream added.</li>
 * <li><b>Ended</b> when the client's GET ends (the members' streams are cancelled: a member that keeps its events
 * resumes them for the client's next GET, which names where it stopped), when no client GET came within
 * {@link #CLIENT_STREAM_WAIT}, or when the session ends. What is still held then is counted and logged as undelivered
 * ({@link UndeliveredMessages}), but for events the member can send again (it gave them ids).</li>
 * </ul>
 * Event ids: the position of every member's stream (member to its last event id, {@link MemberIds#eventId}) at the
 * moment the event entered the session, which is the order the client receives them in.
 */
final class MergedSession {

	/** How long the members' streams are held for a client that has not opened its GET stream (here) yet. */
	static final Duration CLIENT_STREAM_WAIT = Duration.ofSeconds(10);

	/** What the session works with, the same for every session. */
	record Parts(MemberCalls calls, AnswerRelay answers, UndeliveredMessages undelivered, MergedStreams streams) {
	}

	private enum Phase {
		HOLDING, ATTACHED, ENDED
	}

	/** The "member" of the relay's own messages, which are never counted as a member's. */
	private static final String RELAY = "";

	private final Parts parts;

	private final VirtualServer server;

	private final VirtualSession session;

	private final MemberOrigin origin;

	/** Guarded by {@code this}. */
	private final Map<String, MemberStream> members = new LinkedHashMap<>();

	/** Each member's last event id the session took; guarded by {@code this}. */
	private final Map<String, String> positions;

	/** Guarded by {@code this}. */
	private final HeldEvents held = new HeldEvents();

	/** Guarded by {@code this}. */
	private Phase phase = Phase.HOLDING;

	/** The client's GET stream once attached; guarded by {@code this}. */
	private FluxSink<byte[]> client;

	/** The client's GET exchange once attached; guarded by {@code this}. */
	private RelayExchange clientExchange;

	private final Disposable holdTimer;

	/**
	 * @param positions where each member's stream starts: after these event ids (a client's {@code Last-Event-ID})
	 */
	MergedSession(Parts parts, VirtualServer server, VirtualSession session, MemberOrigin origin,
			Map<String, String> positions) {
		this.parts = parts;
		this.server = server;
		this.session = session;
		this.origin = origin;
		this.positions = new LinkedHashMap<>(positions);
		this.holdTimer = Mono.delay(CLIENT_STREAM_WAIT).subscribe(tick -> expireHold());
	}

	Parts parts() {
		return parts;
	}

	VirtualServer server() {
		return server;
	}

	String virtualId() {
		return server.id();
	}

	String sessionId() {
		return session.id();
	}

	/** The virtual session as it was when this stream began (its client's {@code initialize}, to join members again). */
	VirtualSession virtualSession() {
		return session;
	}

	MemberOrigin origin() {
		return origin;
	}

	/** Whether the session is held for a client GET that has not come yet. */
	synchronized boolean holding() {
		return phase == Phase.HOLDING;
	}

	/** The last event id of {@code member}'s the session took, or {@code null}. */
	synchronized String position(String member) {
		return positions.get(member);
	}

	/**
	 * Opens {@code member}'s stream in session {@code memberSession}, in place of the one it had (a member joined
	 * again starts over: its old position means nothing to its new session).
	 */
	void open(String member, MemberSession memberSession) {
		MemberStream stream = new MemberStream(this, member, memberSession);
		MemberStream replaced;
		synchronized (this) {
			if (phase == Phase.ENDED) {
				return;
			}
			replaced = members.put(member, stream);
			if (replaced != null && !replaced.memberSession().equals(memberSession)) {
				positions.remove(member);
			}
		}
		if (replaced != null) {
			replaced.end();
		}
		stream.start();
	}

	/** {@code member}'s stream here, or {@code null}. */
	synchronized MemberStream member(String member) {
		return members.get(member);
	}

	/** Whether the client can be served a stream ({@link MemberStream#servable}). */
	Mono<Boolean> servable(Duration grace) {
		List<MemberStream> streams;
		synchronized (this) {
			streams = List.copyOf(members.values());
		}
		return MemberStream.servable(streams, grace);
	}

	/**
	 * The events for the client's GET {@code exchange}: what was held, then what comes, at the client's pace. The
	 * session ends with it.
	 */
	Flux<byte[]> attach(RelayExchange exchange) {
		return Flux.<byte[]>create(sink -> {
			boolean ended;
			synchronized (this) {
				ended = phase == Phase.ENDED;
				if (!ended) {
					phase = Phase.ATTACHED;
					client = sink;
					clientExchange = exchange;
				}
			}
			if (ended) {
				sink.complete();
				return;
			}
			holdTimer.dispose();
			sink.onDispose(() -> end(UndeliveredMessages.CLIENT_GONE));
			held.attach(sink);
		});
	}

	/**
	 * Takes {@code event} of {@code member}'s, giving it its id; whether the member's reader may ask for the next one
	 * now (else it is told when the session has room: {@link MemberStream.Events#resume()}).
	 */
	boolean offer(String member, MemberStream.Events reader, AnswerRelay.ClientEvent event) {
		boolean room;
		synchronized (this) {
			if (phase == Phase.ENDED) {
				return false;
			}
			String eventId = null;
			String memberEventId = event.event().id();
			if (memberEventId != null) {
				positions.put(member, memberEventId);
				eventId = MemberIds.eventId(positions);
			}
			// in the same step as the id: the order of ids is the order the client gets the events in
			room = held.add(new HeldEvents.Event(member, event.bytes(eventId), event.serverRequest(), event.message(),
					memberEventId != null), reader);
		}
		held.drain();
		return room;
	}

	/**
	 * Tells the client {@code messages} of the relay's own (about a member joined again), after what is held, with no
	 * event id.
	 */
	void tell(List<ObjectNode> messages) {
		synchronized (this) {
			if (phase == Phase.ENDED) {
				return;
			}
			for (ObjectNode message : messages) {
				byte[] bytes = SseEventWriter.message(new String(JsonRpcErrors.toBytes(message), StandardCharsets.UTF_8));
				held.add(new HeldEvents.Event(RELAY, bytes, false, false, false), null);
			}
		}
		held.drain();
	}

	/**
	 * A member's relay found the reader of its stream stalled for its {@code timeouts.client-write}: the session holds
	 * all it may, so the client reads nothing: the client's connection is closed, as a direct server's relay does.
	 */
	void clientStalled() {
		RelayExchange stalled;
		synchronized (this) {
			stalled = phase == Phase.ATTACHED ? clientExchange : null;
		}
		if (stalled != null) {
			stalled.record().failed(false, "client_write_timeout");
			stalled.response().closeConnection();
		}
	}

	/** {@code member} no longer knows its session {@code lost}: it is joined again where the session can. */
	void memberSessionLost(String member, MemberSession lost) {
		parts.streams().memberSessionLost(this, member, lost);
	}

	/** Ends the session: every member's stream, and the client's; counts what was held and not delivered. */
	void end(String reason) {
		List<MemberStream> streams;
		FluxSink<byte[]> attached;
		List<HeldEvents.Event> left;
		synchronized (this) {
			if (phase == Phase.ENDED) {
				return;
			}
			phase = Phase.ENDED;
			streams = new ArrayList<>(members.values());
			attached = client;
			left = held.clear();
		}
		holdTimer.dispose();
		streams.forEach(MemberStream::end);
		parts.streams().ended(this);
		parts.undelivered().count(server.id(), left, reason);
		if (attached != null) {
			attached.complete();
		}
	}

	private void expireHold() {
		if (holding()) {
			end(UndeliveredMessages.NO_CLIENT_STREAM);
		}
	}

}
