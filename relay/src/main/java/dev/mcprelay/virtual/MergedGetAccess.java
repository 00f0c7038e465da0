package dev.mcprelay.virtual;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What a client's merged GET may carry by its caller's access, for as long as its events flux lasts (one per GET,
 * made by {@link MergedStreams#open}). One rule: the GET is judged against the members its session reads now
 * ({@link MergedSession#readMembers}), not those its admission granted, whichever admission opened them (the GET's,
 * a later reload's that gave a member back, a call's that joined or opened one late); losing any of them to a reload
 * ends the GET ({@link #withdrawn}: {@code access_withdrawn}, counted by {@code OpenStreams}), so that the client opens
 * it again on the narrower set. The judgement is made at each reload ({@code RelayExchange.accessWithdrawnFromAny})
 * and again, against the configuration current then, each time a member's stream opens on the session while the GET
 * is attached ({@link #recheck}): a member opened on a call admitted before a reload that took it away is not read on.
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

	/** Completes when a re-check finds the caller lost a member the session reads. */
	private final Sinks.Empty<Void> lostOnRecheck = Sinks.empty();

	MergedGetAccess(MergedSession session, VirtualCall call) {
		this.session = session;
		this.call = call;
	}

	/**
	 * Completes when a reload withdrew the caller's access to the virtual server, or to a member the session reads at
	 * that reload, or when a re-check finds so ({@link #recheck}); never otherwise.
	 */
	Mono<Void> withdrawn() {
		return call.exchange().accessWithdrawnFromAny(session::readMembers).or(lostOnRecheck.asMono());
	}

	/**
	 * {@code events}, with the given-back watch and the re-check on the session's opened streams for as long as it is
	 * subscribed: begun when it is, let go when it completes, fails or is cancelled.
	 */
	<T> Flux<T> governing(Flux<T> events) {
		return Flux.using(this::begin, watch -> events, this::letGo);
	}

	/**
	 * Judges the GET against the members its session reads now on the configuration current now: a member opened on
	 * the session after a reload that the open did not see took it away from the caller ends the GET.
	 */
	void recheck() {
		call.exchange().accessWithdrawnNowFromAny(session::readMembers)
			.filter(lost -> lost)
			.subscribe(lost -> lostOnRecheck.tryEmitEmpty(), error -> log.debug("Virtual server '{}': the caller's access "
					+ "to the members its GET reads could not be checked again: {}", session.virtualId(),
					error.getMessage()));
	}

	private Disposable begin() {
		session.judgedBy(this);
		return watchGivenBack();
	}

	private void letGo(Disposable watch) {
		watch.dispose();
		session.notJudgedBy(this);
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
