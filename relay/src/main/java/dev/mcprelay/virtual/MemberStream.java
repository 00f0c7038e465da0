package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.proxy.SessionOrder;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * One member's server-to-client stream within a {@link MergedSession}: a GET through the member's relay, its events
 * handed to the session one at a time as the session has room for them, opened again on its own when it ends
 * ({@link StreamBackoff#afterEnd()}) or fails ({@link StreamBackoff#afterFailure()}), from the member's last event the
 * session took. A member that answers GET with 405 offers no stream: it is left out for the session. A member that
 * answers 404 (or a 400 about its session) no longer knows the session: the session is told
 * ({@link MergedSession#memberSessionLost}), which joins it again and gives it a new stream.
 *
 * <p>A stream under a member's {@link MemberIds#callKey call key} reads a call's stream again from where the client
 * stopped (a GET's {@code Last-Event-ID} named it): the member sends what the call sent since, then its result, and
 * ends the stream; so does this one then ({@link MergedSession#callStreamEnded}), where a member's server stream is
 * opened again. A member that no longer knows the session ends it too: its server stream finds that out.
 *
 * <p>Its state tells a call whether to wait for it ({@link #settled()}): a call waits while the GET is on its way
 * and the member has not answered it, and goes on once the stream is open, known absent, or failing.
 */
final class MemberStream {

	private static final Logger log = LoggerFactory.getLogger(MemberStream.class);

	/** Where a stream is. */
	enum State {
		/** The GET is on its way; the member has not answered it. */
		OPENING,
		/** The member answered with its event stream. */
		OPEN,
		/** The member offers no stream (405): not opened again. */
		NONE,
		/**
		 * The member no longer knows the session: not opened again; the member is joined again, and a stream in its new
		 * session takes this one's place ({@link MergedSession#open}).
		 */
		LOST,
		/** The GET failed or the stream ended; it is opened again after a wait. */
		WAITING,
		/** The session's stream ended: nothing more. */
		ENDED
	}

	private final MergedSession session;

	private final String key;

	private final String member;

	private final MemberSession memberSession;

	private final StreamBackoff backoff = new StreamBackoff();

	/** The GET in flight, until the member answers it. */
	private final Disposable.Swap request = Disposables.swap();

	/** The reading of the answer's events. */
	private final Disposable.Swap reading = Disposables.swap();

	/** The wait before the next attempt. */
	private final Disposable.Swap timer = Disposables.swap();

	/** The wait, after the member answered the GET, for an event that came with its headers ({@link #judge}). */
	private final Disposable.Swap judging = Disposables.swap();

	/** The first state the stream reached after OPENING, for the session's answer to the client's GET. */
	private final Sinks.One<State> firstOutcome = Sinks.one();

	/** The member's settings its GET was last sent on ({@code null} before the first): {@link #openedOn}. */
	private volatile ServerProperties sentOn;

	/** Guarded by {@code this}. */
	private State state = State.OPENING;

	/** Completes when the current attempt leaves OPENING; guarded by {@code this}. */
	private Sinks.Empty<Void> settled = Sinks.empty();

	/** The current attempt to open the stream; guarded by {@code this}. */
	private StreamAttempt attempt = new StreamAttempt();

	/**
	 * @param key the member's id (its server stream), or its {@link MemberIds#callKey call key} (a call's stream read
	 * again from the session's position for that key)
	 */
	MemberStream(MergedSession session, String key, MemberSession memberSession) {
		this.session = session;
		this.key = key;
		this.member = MemberIds.memberOf(key);
		this.memberSession = memberSession;
	}

	String member() {
		return member;
	}

	/** Its key in the session's streams and in event ids' positions: the member's id, or its call key. */
	String key() {
		return key;
	}

	/** Whether it reads a call's stream again (it ends when the member ends it) rather than the member's server stream. */
	boolean callStream() {
		return MemberIds.isCallKey(key);
	}

	MemberSession memberSession() {
		return memberSession;
	}

	/**
	 * Whether the stream was opened on the member's connection in {@code origin}'s snapshot (or not sent yet;
	 * {@link ServerProperties#sameConnectionAs}): a stream open on settings a reload changed since is opened again on
	 * the new ones when the client opens its GET again ({@link MergedSession#reopened}).
	 */
	boolean openedOn(MemberOrigin origin) {
		ServerProperties sent = sentOn;
		return sent == null || sent.sameConnectionAs(origin.configuration().properties().servers().get(member));
	}

	/** Opens the stream. */
	void start() {
		connect();
	}

	/** Completes once the current attempt to open the stream is past {@link State#OPENING}. */
	synchronized Mono<Void> settled() {
		return state == State.OPENING ? settled.asMono() : Mono.empty();
	}

	/**
	 * A call stopped waiting for this stream and went to the member: if the stream is still opening, it is counted
	 * against the attempt, for {@link MergedStreams#answeredAlone} to judge once the member answers the GET.
	 *
	 * @return completes if the member then answers this GET with its headers alone: it had no stream when the call
	 * came, so a request it sent the client during the call was dropped at the member; never, else
	 */
	synchronized Mono<Void> callWentAhead() {
		if (state != State.OPENING) {
			return Mono.never();
		}
		return attempt.callWentAhead();
	}

	/**
	 * Whether a client can be served a stream of {@code streams}: as soon as one is open; not when each member offers
	 * none (405); yes when each has answered otherwise (a member that is down, or lost its session, comes back), or when
	 * one has not answered within {@code grace} (a member that sends its stream's headers only with its first event).
	 */
	static Mono<Boolean> servable(List<MemberStream> streams, Duration grace) {
		if (streams.isEmpty()) {
			return Mono.just(false);
		}
		return Flux.merge(streams.stream().map(MemberStream::firstOutcome).toList())
			.takeUntil(state -> state == State.OPEN)
			.collectList()
			.map(states -> states.contains(State.OPEN) || states.size() < streams.size()
					|| !states.stream().allMatch(state -> state == State.NONE))
			.timeout(grace, Mono.just(true));
	}

	/**
	 * The first state the stream reached: {@link State#OPEN}, {@link State#NONE}, {@link State#LOST},
	 * {@link State#WAITING} or {@link State#ENDED}.
	 */
	Mono<State> firstOutcome() {
		return firstOutcome.asMono();
	}

	/** Whether {@code event} is a JSON-RPC response (a call's result or error), the last a call's stream sends. */
	static boolean isResponse(AnswerRelay.ClientEvent event) {
		if (!event.message() || event.serverRequest()) {
			return false;
		}
		ObjectNode message = MemberMessages.parse(event.event().dataBytes());
		return message != null && !message.has("method") && (message.has("result") || message.has("error"));
	}

	/** Ends the stream: the GET or its reading is cancelled, no attempt follows. */
	void end() {
		Sinks.Empty<Void> waiting;
		synchronized (this) {
			if (state == State.ENDED) {
				return;
			}
			state = State.ENDED;
			waiting = settled;
		}
		timer.dispose();
		judging.dispose();
		request.dispose();
		reading.dispose();
		waiting.tryEmitEmpty();
		firstOutcome.tryEmitValue(State.ENDED);
	}

	/**
	 * Opens the stream (again): unless the configuration now current no longer has the member in the session's virtual
	 * server (a reload removed its server, or the virtual server's {@code members} no longer name it), whatever snapshot
	 * the session began on, or has changed the member's server since the snapshot of the client's latest GET
	 * ({@link ServedMembers#stillServes}); then the stream ends for good (its ending was counted once, by what ended
	 * it) and leaves the session ({@link MergedSession#endedForGood}): the member's server is not asked again on those
	 * settings; the client's next GET opens it on its own.
	 */
	private void connect() {
		if (!stillServed()) {
			return;
		}
		synchronized (this) {
			if (state == State.ENDED) {
				return;
			}
			if (state != State.OPENING) {
				state = State.OPENING;
				settled = Sinks.empty();
			}
			attempt = new StreamAttempt();
		}
		String resumeAfter = session.position(key);
		MemberOrigin origin = session.origin();
		sentOn = origin.configuration().properties().servers().get(member);
		request.update(session.parts()
			.calls()
			.send(origin, member, HttpMethod.GET, memberSession, resumeAfter, null, session::clientStalled,
					session::clientAttached)
			.subscribe(this::answered, this::failed));
	}

	/**
	 * Whether the configuration now current still has the member in the session's virtual server, on the settings of
	 * the client's latest GET ({@link ServedMembers#stillServes}); if not, the stream ends for good (logged) and leaves
	 * the session: its server is not asked again on those settings, neither for a stream nor for a session of its own.
	 */
	private boolean stillServed() {
		if (session.parts().streams().served().stillServes(session, member)) {
			return true;
		}
		log.info("Virtual server '{}': member '{}' is no longer one of its members, or a reload changed its server; "
				+ "its stream is not opened again on the settings it began with", session.virtualId(), member);
		end();
		session.endedForGood(this);
		return false;
	}

	/**
	 * The member's relay answered the GET. The answer of a member a reload took out of the virtual server meanwhile (its
	 * GET ended before the member answered, 404 {@code server_removed}) ends the stream for good: it is not taken for
	 * a member that lost its session, which would be joined again on the settings the session began with.
	 */
	private void answered(MemberAnswer answer) {
		// a GET sent before a reload that changed the member's server is answered on its settings; one the reload took
		// out of the virtual server is not read
		if (!session.parts().streams().served().stillHas(session, member)) {
			log.info("Virtual server '{}': member '{}' is no longer one of its members; its stream is not opened again",
					session.virtualId(), member);
			end();
			session.endedForGood(this);
			answer.discard().subscribe(null, error -> {
			});
			return;
		}
		if (!answer.isEventStream()) {
			int status = answer.status().value();
			if (status == 405) {
				answer.discard().subscribe(null, error -> {
				});
				log.debug("Virtual server '{}': member '{}' offers no stream (405)", session.virtualId(), member);
				settle(State.NONE);
				return;
			}
			MemberSessionLost.check(answer, memberSession).subscribe(other -> {
				other.discard().subscribe(null, error -> {
				});
				failed(new IllegalStateException("answered GET with HTTP " + status));
			}, error -> {
				if (error instanceof MemberSessionLost && callStream()) {
					// the call died with the member's session; the member's server stream joins it again
					session.callStreamEnded(this);
				}
				else if (error instanceof MemberSessionLost && settle(State.LOST)) {
					session.memberSessionLost(member, memberSession);
				}
				else {
					failed(error);
				}
			});
			return;
		}
		StreamAttempt answeredAttempt;
		synchronized (this) {
			answeredAttempt = attempt;
		}
		if (!settle(State.OPEN)) {
			answer.discard().subscribe(null, error -> {
			});
			return;
		}
		backoff.opened();
		Events events = new Events(answeredAttempt);
		reading.update(events);
		judging.update(Schedulers.parallel()
			.schedule(() -> judge(answeredAttempt), SessionOrder.GET_HEADERS_GRACE.toMillis(), TimeUnit.MILLISECONDS));
		MemberMessages.events(answer)
			.map(event -> session.parts().answers().prepare(session.server(), session.sessionId(), member, event))
			.subscribe(events);
	}

	/**
	 * {@link SessionOrder#GET_HEADERS_GRACE} after the member answered {@code answered}'s GET with its event stream:
	 * unless the stream ended, the attempt is judged ({@link StreamAttempt#judgeHeadersAlone}); a member that answered
	 * with its headers alone had no stream for the calls that went ahead ({@link MergedStreams#answeredAlone}).
	 */
	private void judge(StreamAttempt answered) {
		OptionalInt ahead;
		synchronized (this) {
			if (state == State.ENDED) {
				return;
			}
			ahead = answered.judgeHeadersAlone();
		}
		if (ahead.isPresent()) {
			session.parts().streams().answeredAlone(session, member, ahead.getAsInt());
			answered.foundWithoutStream();
		}
	}

	/**
	 * The GET failed (it timed out, the member answered an error, the connection broke) or the open stream did. An
	 * attempt that never opened had no stream for the calls that went ahead of it, as one answered with its headers
	 * alone ({@link #judge}): they are counted and those still waiting for the member ended, never left to wait for
	 * the answer to a request the member could not send.
	 */
	private void failed(Throwable error) {
		StreamAttempt unopened = null;
		OptionalInt ahead = OptionalInt.empty();
		synchronized (this) {
			// a GET the relay's own shutdown ended tells nothing of the member; its calls finish within the grace
			if (state == State.OPENING && !session.parts().streams().shuttingDown()) {
				unopened = attempt;
				ahead = unopened.judgeHeadersAlone();
			}
		}
		if (ahead.isPresent() && ahead.getAsInt() > 0) {
			session.parts().undelivered().callsAhead(session.virtualId(), member, ahead.getAsInt());
			unopened.foundWithoutStream();
		}
		if (settle(State.WAITING)) {
			log.debug("Virtual server '{}': the stream of member '{}' failed, opening it again", session.virtualId(),
					member, error);
			again(backoff.afterFailure());
		}
	}

	private void ended() {
		if (callStream()) {
			// the member sent the call's result and ended its stream: nothing more will come on it
			session.callStreamEnded(this);
			return;
		}
		if (settle(State.WAITING)) {
			again(backoff.afterEnd());
		}
	}

	private void again(Duration wait) {
		timer.update(Schedulers.parallel().schedule(this::connect, wait.toMillis(), TimeUnit.MILLISECONDS));
	}

	/** Moves the stream to {@code next} unless it ended; whoever waited for this attempt goes on. */
	private boolean settle(State next) {
		Sinks.Empty<Void> waiting;
		synchronized (this) {
			if (state == State.ENDED) {
				return false;
			}
			state = next;
			waiting = settled;
		}
		waiting.tryEmitEmpty();
		firstOutcome.tryEmitValue(next);
		return true;
	}

	/** Reads the stream's events, one at a time, each asked for once the session has room for the one before. */
	final class Events extends BaseSubscriber<AnswerRelay.ClientEvent> {

		private final StreamAttempt attempt;

		Events(StreamAttempt attempt) {
			this.attempt = attempt;
		}

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			request(1);
		}

		@Override
		protected void hookOnNext(AnswerRelay.ClientEvent event) {
			if (event.message()) {
				attempt.messageSeen();
			}
			if (session.offer(MemberStream.this, this, event)) {
				request(1);
			}
		}

		/** The session has room again after it took no more: the next event may come. */
		void resume() {
			request(1);
		}

		@Override
		protected void hookOnComplete() {
			ended();
		}

		@Override
		protected void hookOnError(Throwable error) {
			failed(error);
		}

	}

}
