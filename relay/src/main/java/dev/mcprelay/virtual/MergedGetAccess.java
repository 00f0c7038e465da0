package dev.mcprelay.virtual;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a client's merged GET may carry by its caller's access, for as long as its events flux lasts (one per GET,
 * made by {@link MergedStreams#open}). One rule: the GET is judged against the members its session reads now
 * ({@link MergedSession#readMembers}), not those its admission granted, whichever admission opened them (the GET's,
 * a later reload's that gave a member back, a call's that joined or opened one late); losing any of them to a reload
 * ends the GET ({@link #withdrawn}: {@code access_withdrawn}, counted by {@code OpenStreams}), so that the client opens
 * it again on the narrower set. The judgement is made at each reload ({@code RelayExchange.accessWithdrawnFromAny}).
 * A member's stream opened on the session while the GET is attached is read on it only if the GET's own access may
 * use that member now ({@link #mayRead}, {@link GetReadGate}), whichever request opens it (a call admitted before a
 * reload that took the member away, review 44o O-H1; a call of another credential of the same caller, O-H2): else the
 * session does not read it and the GET runs on. What the session reads when the GET begins is judged so too.
 *
 * <p>While the events flux lasts, too, each member its session joined that the GET's admission does not let its caller
 * use is watched: a later reload that gives it back ({@code RelayExchange.accessGrantedTo}) has its stream join the
 * GET ({@link MergedSession#openIfUnread}; review 44k K1). The watch and the re-check are subscribed when the events
 * flux is, and let go when it ends or is cancelled ({@link #governing}): a GET the client resets before its body is
 * written leaves nothing behind (review 44n N-M1).
 *
 * <p>Runs on the thread that made a snapshot current, or the one a member's stream opens on; never blocks.
 */
final class MergedGetAccess {

	private static final Logger log = LoggerFactory.getLogger(MergedGetAccess.class);

	private final MergedSession session;

	private final VirtualCall call;

	MergedGetAccess(MergedSession session, VirtualCall call) {
		this.session = session;
		this.call = call;
	}

	/**
	 * Completes when a reload withdrew the caller's access to the virtual server, or to a member the session reads at
	 * that reload; never otherwise.
	 */
	Mono<Void> withdrawn() {
		return call.exchange().accessWithdrawnFromAny(session::readMembers);
	}

	/**
	 * {@code events}, with the given-back watch and the re-check on the session's opened streams for as long as it is
	 * subscribed: begun when it is, let go when it completes, fails or is cancelled.
	 */
	<T> Flux<T> governing(Flux<T> events) {
		return Flux.using(this::begin, watch -> events, this::letGo);
	}

	/**
	 * Whether this GET may read {@code member}: its own caller's credential may use it on the configuration current
	 * now (its admission's members when no reload came since; {@code RelayExchange.accessUsableNow}).
	 */
	Mono<Boolean> mayRead(String member) {
		return call.exchange().accessUsableNow(member);
	}

	private Disposable begin() {
		session.gate().judgedBy(this);
		// what a request opened on the session between the GET's admission and now, unjudged (review 44o O-H2)
		Flux.fromIterable(session.readMembers())
			.filterWhen(member -> mayRead(member).map(may -> !may))
			.collectList()
			.filter(unreadable -> !unreadable.isEmpty())
			.subscribe(unreadable -> session.stopReading(unreadable::contains,
					UndeliveredMessages.GET_MAY_NOT_READ), error -> log.debug("Virtual server "
					+ "'{}': what the GET's session reads could not be judged: {}", session.virtualId(),
					error.getMessage()));
		return watchGivenBack();
	}

	private void letGo(Disposable watch) {
		watch.dispose();
		session.gate().notJudgedBy(this);
	}

	/** The given-back watch: each joined member the GET's admission does not let the caller use, opened once it may. */
	private Disposable watchGivenBack() {
		List<Mono<Void>> watches = call.session().members().keySet().stream()
			.filter(member -> !call.usable().contains(member))
			.map(member -> call.exchange().accessGrantedTo(member)
				.then(Mono.<Void>fromRunnable(() -> session.openIfUnread(member, call.memberSession(member)))))
			.toList();
		return watches.isEmpty() ? Disposables.disposed()
				: Flux.merge(watches).subscribe(null, error -> log.debug("Virtual server '{}': a member given back "
						+ "to the caller was not opened: {}", session.virtualId(), error.getMessage()));
	}

}
