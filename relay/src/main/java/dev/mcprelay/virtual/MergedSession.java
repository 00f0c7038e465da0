package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.http.RelayExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One virtual session's server-to-client stream on this replica: every member's stream ({@link MemberStream}) merged
 * in one serial step that gives each event its id, so that an id names exactly the events the client received before
 * it, and held for the client until its GET takes them.
 *
 * <ul>
 * <li><b>Held from the join</b> ({@link MergedStreams#hold}: once the members have the client's
 * {@code notifications/initialized}, before the client may call anything), or from the client's GET when it finds
 * none here. What the members send waits ({@link HeldEvents}, bounded: a member's stream is then read no further until
 * the client takes some, and its relay applies {@code timeouts.client-write} to a client that reads too slowly).</li>
 * <li><b>Attached.</b> The client's GET takes what was held, then the rest as it comes, at its own pace
 * ({@link ClientStream}). A member joined later (or joined again) gets its stream added.</li>
 * <li><b>Held again</b> when the client's GET ends: the streams of the members that keep no events (they give them no
 * ids) stay open and what they send is held for the client's next GET, as from the join (they could not send again
 * what came meanwhile); those that do are read again from where the next GET says the client stopped
 * ({@code Last-Event-ID}, {@link #clientGone}).</li>
 * <li><b>Ended</b> when no client GET came within {@link ClientStream#WAIT} (of the join, or of the client's last GET
 * ending), or when the session ends. What is still held then is counted and logged as undelivered
 * ({@link UndeliveredMessages}), but for events the member can send again (it gave them ids) to a client that had a
 * stream; a member's request among them is answered to the member with an error, unless the session ended.</li>
 * </ul>
 * Event ids: the position of every member's stream (member to its last event id, {@link MemberIds#eventId}) at the
 * moment the event entered the session, which is the order the client receives them in.
 *
 * <p><b>A call's stream resumed.</b> A GET whose {@code Last-Event-ID} names where a call's stream stopped (under the
 * member's {@link MemberIds#callKey call key}: the id of an event of a call's answer, or of a merged event while that
 * call was read into it) has that call's stream read from there into this one, beside the member's server stream, in
 * whatever state this session is (new with the GET, held since the join, or held again), on any replica: the member
 * sends the progress the client missed, then the result ({@link #clientArrived}). A merged event's id carries the
 * call's position until its result: a GET that resumes after the result has nothing of the call to read again.
 */
final class MergedSession {

	/** What the session works with, the same for every session. */
	record Parts(MemberCalls calls, AnswerRelay answers, UndeliveredMessages undelivered, MergedStreams streams) {
	}

	private final Parts parts;

	/** The virtual server it runs on: moves onto the version a reload replaced its own with, if it carries on. */
	private final SessionServer server;

	private final VirtualSession session;

	/**
	 * On whose behalf, and on which settings, the member streams are opened: the origin of the client's latest GET
	 * (of the join, before any), so that a GET the client opens after a reload opens them on the settings current then
	 * ({@link #reopened}).
	 */
	private volatile MemberOrigin origin;

	/** The streams read, by key ({@link MemberStream#key}); guarded by {@code this}. */
	private final Map<String, MemberStream> members = new LinkedHashMap<>();

	/** Each stream's last event id the session took, by key; guarded by {@code this}. */
	private final Map<String, String> positions;

	/** Guarded by {@code this}. */
	private final HeldEvents held = new HeldEvents();

	private final ClientStream client = new ClientStream(held, this::clientGone, this::end);

	/**
	 * Streams (by key) to be read again from where the client's next GET says ({@link #clientGone}); guarded by
	 * {@code this}.
	 */
	private final Map<String, MemberSession> parked = new LinkedHashMap<>();

	/** Guarded by {@code this}. */
	private boolean ended;

	/**
	 * Whether a client GET is attached, as this session heard of it ({@link #clientArrived}, {@link #clientGone}: under
	 * the client stream's lock, then this one's); guarded by {@code this}.
	 */
	private boolean clientHere;

	/**
	 * Members whose stream found their session lost while no client GET was attached (member to the session it lost):
	 * joined again by the client's next request to them, or when its next GET attaches ({@link #memberSessionLost});
	 * guarded by {@code this}.
	 */
	private final Map<String, MemberSession> lostWhileAway = new LinkedHashMap<>();

	/** Which member streams open here while a client GET is attached: those its access may read. */
	private final GetReadGate gate = new GetReadGate();

	/** @param positions where each member's stream starts: after these event ids (a client's {@code Last-Event-ID}) */
	MergedSession(Parts parts, VirtualServer server, VirtualSession session, MemberOrigin origin,
			Map<String, String> positions) {
		this.parts = parts;
		this.server = new SessionServer(server);
		this.session = session;
		this.origin = origin;
		this.positions = new LinkedHashMap<>(positions);
	}

	Parts parts() {
		return parts;
	}

	VirtualServer server() {
		return server.now();
	}

	/** After a reload ended the version of {@code from}: moves it on to {@code to}, unless it left {@code from}. */
	boolean carryOn(VirtualServer from, VirtualServer to) {
		return server.moveOn(from, to);
	}

	String virtualId() {
		return server.now().id();
	}

	String sessionId() {
		return session.id();
	}

	/** The virtual session as it was when this stream began (its client's {@code initialize}, to join members again). */
	VirtualSession virtualSession() {
		return session;
	}

	/** The origin of the client's latest GET here (of the join, before any): what member streams are opened on. */
	MemberOrigin origin() {
		return origin;
	}

	/** Whether the session has not ended. */
	synchronized boolean live() {
		return !ended;
	}

	/** The last event id the session took of the stream under {@code key} ({@link MemberStream#key}), or {@code null}. */
	synchronized String position(String key) {
		return positions.get(key);
	}

	/**
	 * Opens {@code member}'s stream in {@code memberSession}, in place of the one it had (a member joined again starts
	 * over: its old position means nothing to its new session): carried on the attached GET if that GET may read it,
	 * else refused there ({@link GetReadGate}).
	 */
	void open(String member, MemberSession memberSession) {
		opening(member, memberSession);
	}

	/**
	 * {@link #open}, telling whether the stream is carried to the client: {@code false} when the attached GET refused
	 * it (its requests are answered to the member, {@link #offer}). The stream opens whether or not this is subscribed.
	 */
	Mono<Boolean> opening(String member, MemberSession memberSession) {
		return gate.open(this, member, () -> openNow(member, memberSession));
	}

	private void openNow(String member, MemberSession memberSession) {
		MemberStream stream = new MemberStream(this, member, memberSession);
		MemberStream replaced;
		synchronized (this) {
			if (ended) {
				return;
			}
			replaced = members.put(member, stream);
			MemberSession wasParked = parked.remove(member);
			if ((replaced != null && !replaced.memberSession().equals(memberSession))
					|| (wasParked != null && !wasParked.equals(memberSession))) {
				positions.remove(member);
			}
		}
		if (replaced != null) {
			replaced.end();
		}
		stream.start();
	}

	/** Which member streams open here while a client GET is attached ({@link MergedGetAccess} sets it). */
	GetReadGate gate() {
		return gate;
	}

	/**
	 * Opens {@code member}'s stream in {@code memberSession} ({@link #open}) unless this session reads it here already
	 * ({@link #reads}): a member the session joined and does not read (it was not usable to the client's caller, or
	 * its stream ended for good on settings a reload changed) joins the session's stream as a member joined late does.
	 */
	void openIfUnread(String member, MemberSession memberSession) {
		synchronized (this) {
			if (ended || reads(member)) {
				return;
			}
		}
		open(member, memberSession);
	}

	/**
	 * Whether this session reads {@code member}'s stream here, or holds its place while the client's GET is away;
	 * {@code false} for a member it never opened (not joined when it began, or not on the settings it began on).
	 */
	synchronized boolean reads(String member) {
		return members.containsKey(member) || parked.containsKey(member);
	}

	/**
	 * The members whose streams this session reads now, or whose place it holds while the client's GET is away (a
	 * call's stream counts for its member): what the client's GET carries, which its caller's access is judged against
	 * ({@link MergedGetAccess}).
	 */
	synchronized Set<String> readMembers() {
		Set<String> read = new LinkedHashSet<>();
		members.keySet().forEach(key -> read.add(MemberIds.memberOf(key)));
		parked.keySet().forEach(key -> read.add(MemberIds.memberOf(key)));
		read.removeIf(gate::refuses);
		return read;
	}

	/** {@code member}'s stream here, or {@code null}. */
	synchronized MemberStream member(String member) {
		return members.get(member);
	}

	/**
	 * Whether the client can be served a stream ({@link MemberStream#servable}); yes when a member's stream waits for
	 * the client's GET to be opened again.
	 */
	Mono<Boolean> servable(Duration grace) {
		List<MemberStream> streams;
		synchronized (this) {
			if (!parked.isEmpty()) {
				return Mono.just(true);
			}
			streams = List.copyOf(members.values());
		}
		return MemberStream.servable(streams, grace);
	}

	/**
	 * The client opened its GET stream again, admitted on {@code origin}: the GET attached before, if any, gets nothing
	 * more ({@link ClientStream#supersede}), and what comes is held for the new one until it {@link #attach attaches};
	 * member streams are opened on {@code origin}'s settings from now on (those current when the client opened it), and
	 * a member's stream still open on settings a reload changed since is opened again on them, in the same member
	 * session (a member that does not know it on its new server answers so, and is joined again:
	 * {@link #memberSessionLost}): the member's stream comes back on its new settings (review 44f N2).
	 */
	void reopened(MemberOrigin origin) {
		this.origin = origin;
		client.supersede();
		gate.superseded();
		List<MemberStream> changed;
		synchronized (this) {
			changed = members.values().stream()
				.filter(stream -> !stream.callStream() && !stream.openedOn(origin))
				.toList();
		}
		changed.forEach(stream -> open(stream.member(), stream.memberSession()));
	}

	/**
	 * {@code stream} ended for good ({@link MemberStream}: a reload took its member out of the virtual server, or changed
	 * its server since the settings the session's streams are opened on): the session no longer reads it, so that a
	 * GET the client opens later opens it again if the member is still one, on that GET's settings
	 * ({@link MergedStreams#open}). Its position is kept: the member session is the same.
	 */
	void endedForGood(MemberStream stream) {
		synchronized (this) {
			members.remove(stream.key(), stream);
		}
	}

	/**
	 * The client's GET, admitted now, may use only the members {@code usable} (a reload withdrew the others from its
	 * caller): every other member's streams (its calls' too) end here for good, it is neither read again when the GET
	 * attaches ({@link #clientArrived}) nor joined again when its session is lost, and what is held of it is dropped
	 * (counted {@link UndeliveredMessages#GET_MAY_NOT_READ}; a member's request among it is answered to the member with
	 * an error: whether a reload took the member from this GET's credential or it was never that credential's, a call of
	 * another credential that may use it may be waiting on it, review 44p P-M2). Runs before the GET attaches. The member
	 * stays joined (its member session ends with the virtual session); its stream opens again ({@link #openIfUnread})
	 * once a request may use it: by the open GET when a reload gives it back, by a call to it (refused on a GET that
	 * may not read it, {@link GetReadGate}), or by the client's next GET ({@link MergedStreams}).
	 */
	void keepOnly(Collection<String> usable) {
		stopReading(member -> !usable.contains(member), UndeliveredMessages.GET_MAY_NOT_READ);
	}

	/**
	 * {@link #keepOnly} for the members {@code lost} names: the GET's access may not read them (any more); what was held
	 * of them is counted under {@code reason}, a request answered to its member unless the reason says not to
	 * ({@link UndeliveredMessages#count}).
	 */
	void stopReading(Predicate<String> lost, String reason) {
		List<MemberStream> ending = new ArrayList<>();
		List<HeldEvents.Event> dropped = new ArrayList<>();
		Map<String, MemberSession> memberSessions = new LinkedHashMap<>();
		synchronized (this) {
			if (ended) {
				return;
			}
			Set<String> withdrawn = new LinkedHashSet<>();
			members.values().removeIf(stream -> {
				boolean out = lost.test(stream.member());
				if (out) {
					withdrawn.add(stream.member());
					ending.add(stream);
					memberSessions.putIfAbsent(stream.member(), stream.memberSession());
				}
				return out;
			});
			parked.entrySet().removeIf(entry -> {
				boolean out = lost.test(MemberIds.memberOf(entry.getKey()));
				if (out) {
					withdrawn.add(MemberIds.memberOf(entry.getKey()));
					memberSessions.putIfAbsent(MemberIds.memberOf(entry.getKey()), entry.getValue());
				}
				return out;
			});
			lostWhileAway.keySet().removeIf(lost);
			positions.keySet().removeIf(key -> lost.test(MemberIds.memberOf(key)));
			withdrawn.forEach(member -> dropped.addAll(held.withdraw(member)));
		}
		ending.forEach(MemberStream::end);
		if (!dropped.isEmpty()) {
			parts.undelivered().count(this, dropped, reason, memberSessions);
			held.drain();
		}
	}

	/**
	 * The events for the client's GET {@code exchange} ({@link ClientStream#attach}), which received {@code received}
	 * (member to its last event id the client got, from its {@code Last-Event-ID}; empty without one).
	 */
	Flux<byte[]> attach(RelayExchange exchange, Map<String, String> received) {
		return client.attach(exchange, () -> clientArrived(received));
	}

	/**
	 * The client's GET ended, or another took its place ({@link ClientStream} says so before the next attaches): each
	 * member that gives its events ids is parked, its stream ended and what is held of it dropped, to be read
	 * again from where the next GET says the client stopped ({@link #clientArrived}): what went to the GET that ended
	 * without reaching the client comes again. The others' streams stay open; what they send is held.
	 */
	private void clientGone() {
		List<MemberStream> parking = new ArrayList<>();
		synchronized (this) {
			clientHere = false;
			if (!ended) {
				members.values().removeIf(stream -> positions.containsKey(stream.key()) && park(stream, parking));
			}
		}
		parking.forEach(MemberStream::end);
		held.drain();
	}

	/**
	 * The client's GET attached, having received {@code received}: each parked member is read again from where the
	 * client stopped (when the client's id does not name it, after the last event of its the client may have got), and
	 * the ids of the events held name that position for it. A member still read is left as it is: its stream began at
	 * the client's position (a session new with this GET), or the member was joined again since (the client's id names
	 * its old session). A call's stream the client's id names and this session does not read is read from there
	 * ({@link #resumeCalls}).
	 */
	private void clientArrived(Map<String, String> received) {
		List<MemberStream> opened = new ArrayList<>();
		Map<String, MemberSession> lost = new LinkedHashMap<>();
		synchronized (this) {
			if (ended) {
				return;
			}
			clientHere = true;
			// but a member joined again since (a request found its session lost): it has its new stream here
			lostWhileAway.forEach((member, memberSession) -> {
				MemberStream stream = members.get(member);
				if (stream != null && stream.memberSession().equals(memberSession)) {
					lost.put(member, memberSession);
				}
			});
			lostWhileAway.clear();
			Map<String, String> handedOn = held.handedOn();
			Map<String, String> from = new LinkedHashMap<>();
			parked.forEach((key, memberSession) -> {
				String position = received.containsKey(key) ? received.get(key) : handedOn.get(key);
				from.put(key, position);
				if (position == null) {
					positions.remove(key);
				}
				else {
					positions.put(key, position);
				}
				// a call's stream of which the client's id names no position has nothing left for it: its result came
				if (position != null || !MemberIds.isCallKey(key)) {
					MemberStream stream = new MemberStream(this, key, memberSession);
					members.put(key, stream);
					opened.add(stream);
				}
			});
			parked.clear();
			held.restamp(from);
			opened.addAll(resumeCalls(received));
		}
		opened.forEach(MemberStream::start);
		lost.forEach((member, memberSession) -> parts.streams().memberSessionLost(this, member, memberSession));
	}

	/**
	 * The streams of the calls {@code received} names (call keys, {@link MemberIds#callKey}) that this session does not
	 * read, each to be read from the client's position there in its member's session (under the lock; the caller
	 * starts them). A call whose member has no stream here is left: the member is not joined (yet, or any more).
	 */
	private List<MemberStream> resumeCalls(Map<String, String> received) {
		List<MemberStream> resumed = new ArrayList<>();
		received.forEach((key, position) -> {
			if (!MemberIds.isCallKey(key) || members.containsKey(key)) {
				return;
			}
			MemberStream server = members.get(MemberIds.memberOf(key));
			MemberSession memberSession = server != null ? server.memberSession() : parked.get(MemberIds.memberOf(key));
			if (memberSession == null) {
				return;
			}
			positions.put(key, position);
			held.carry(key, position);
			MemberStream stream = new MemberStream(this, key, memberSession);
			members.put(key, stream);
			resumed.add(stream);
		});
		return resumed;
	}

	/**
	 * The member ended the call's stream {@code stream} reads again (after the result), or no longer knows its
	 * session: it is read no more, and ids no longer name it.
	 */
	void callStreamEnded(MemberStream stream) {
		synchronized (this) {
			if (members.remove(stream.key(), stream)) {
				positions.remove(stream.key());
			}
		}
		stream.end();
	}

	/** Parks {@code stream} (under the lock; the caller ends the stream, listed in {@code ending}). */
	private boolean park(MemberStream stream, List<MemberStream> ending) {
		parked.put(stream.key(), stream.memberSession());
		held.drop(stream.member());
		ending.add(stream);
		return true;
	}

	/**
	 * Takes {@code event} of {@code stream}'s, giving it its id; whether the stream's reader may ask for the next one
	 * now (else it is told when the session has room: {@link MemberStream.Events#resume()}). An event of a stream that
	 * another took the place of is not taken (its successor reads the member from this stream's position on).
	 */
	boolean offer(MemberStream stream, MemberStream.Events reader, AnswerRelay.ClientEvent event) {
		String key = stream.key();
		boolean result = stream.callStream() && MemberStream.isResponse(event);
		boolean room;
		boolean refused = false;
		synchronized (this) {
			if (ended || members.get(key) != stream) {
				return false;
			}
			if (gate.refuses(stream.member())) {
				refused = true;
			}
		}
		if (refused) {
			// the attached GET may not read this member: a request is answered to the member now (review 44p P-M2)
			parts.undelivered().count(this, List.of(new HeldEvents.Event(stream.member(), event, null, null)),
					UndeliveredMessages.GET_MAY_NOT_READ, Map.of(stream.member(), stream.memberSession()));
			return true;
		}
		synchronized (this) {
			if (ended || members.get(key) != stream) {
				return false;
			}
			Map<String, String> id = null;
			String memberEventId = event.event().id();
			if (result) {
				// a client that got the call's result has nothing of it to read again
				positions.remove(key);
			}
			else if (memberEventId != null) {
				positions.put(key, memberEventId);
			}
			if (memberEventId != null) {
				id = new LinkedHashMap<>(positions);
			}
			// in the same step as the id: the order of ids is the order the client gets the events in
			room = held.add(new HeldEvents.Event(stream.member(), event, id, null), reader);
		}
		held.drain();
		return room;
	}

	/** Tells the client {@code messages} of the relay's own ({@link HeldEvents#tell}). */
	void tell(List<ObjectNode> messages) {
		if (live()) {
			held.tell(messages);
		}
	}

	/**
	 * Tells the client {@code messages} of the relay's own on its GET stream if one is attached now; else not: the
	 * caller tells them with the answer of the request at hand (a client that only POSTs gets them there, whatever
	 * the session's age).
	 *
	 * @return whether a GET took them
	 */
	boolean tellIfAttached(List<ObjectNode> messages) {
		synchronized (this) {
			if (ended || !clientHere) {
				return false;
			}
		}
		held.tell(messages);
		return true;
	}

	/**
	 * A member's relay found the reader of its stream stalled for its {@code timeouts.client-write}: the session holds
	 * all it may, so the client reads nothing; its connection is closed ({@link ClientStream#stalled}).
	 */
	void clientStalled() {
		client.stalled();
	}

	/** Whether a client GET takes the session's events now (none: they are held, and nobody can stall). */
	boolean clientAttached() {
		return client.attached();
	}

	/**
	 * {@code member}'s stream found that the member no longer knows its session {@code lost}. With a client GET
	 * attached, the member is joined again now and the client told on that GET. Without one, the member is left for
	 * the client's next request to it, which joins it again and carries what the client is told before its answer
	 * (as for a session with no stream here), or for the client's next GET, which joins it then
	 * ({@link #clientArrived}).
	 */
	void memberSessionLost(String member, MemberSession lost) {
		synchronized (this) {
			if (ended) {
				return;
			}
			if (!clientHere) {
				lostWhileAway.put(member, lost);
				return;
			}
		}
		parts.streams().memberSessionLost(this, member, lost);
	}

	/** Ends the session: every member's stream, and the client's; counts what was held and not delivered. */
	void end(String reason) {
		List<MemberStream> streams;
		List<HeldEvents.Event> left;
		Map<String, MemberSession> memberSessions = new LinkedHashMap<>();
		synchronized (this) {
			if (ended) {
				return;
			}
			ended = true;
			streams = new ArrayList<>(members.values());
			left = held.clear();
			parked.forEach((key, memberSession) -> memberSessions.putIfAbsent(MemberIds.memberOf(key), memberSession));
			streams.stream()
				.filter(stream -> !stream.callStream())
				.forEach(stream -> memberSessions.put(stream.member(), stream.memberSession()));
			streams.stream()
				.filter(MemberStream::callStream)
				.forEach(stream -> memberSessions.putIfAbsent(stream.member(), stream.memberSession()));
		}
		client.end();
		streams.forEach(MemberStream::end);
		parts.streams().ended(this);
		parts.undelivered().count(this, left, reason, memberSessions);
	}

}
