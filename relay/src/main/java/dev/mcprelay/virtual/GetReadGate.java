package dev.mcprelay.virtual;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Which member streams the attached client GET of a merged session ({@link MergedSession#open}) carries: only those of
 * the members that GET's own access may read now ({@link MergedGetAccess#mayRead}: the credential that opened the GET,
 * judged on the configuration current now), whichever request opens them: a call admitted before a reload that
 * narrowed its caller (review 44o O-H1), a call of another credential of the same caller (a wider token of the same
 * subject, O-H2), a member joined late or again, one given back.
 *
 * <p>A member the GET may not read is <b>refused</b>: its stream opens all the same, so that a call to it (by a
 * credential that may use it) still goes only once the member has a stream to send its requests to the client on
 * ({@link MergedStreams}), but nothing of it reaches the GET: a request of the member's on it is answered to the
 * member at once with a JSON-RPC error, a notification dropped, both counted
 * ({@link UndeliveredMessages#GET_MAY_NOT_READ}, review 44p P-M2). Answered at once rather than held for a GET that
 * may read it: the GET attached is the session's one stream to the client, which reads it in order, and a member's
 * request held beside it would keep the call waiting on it (and the member) for as long as that GET stays open. The
 * GET runs on. Refusals last as long as the judging GET: the next one judges afresh what the session reads when it
 * begins ({@link MergedGetAccess}).
 *
 * <p>Once open, a carried member is judged again: a reload made current between the judgement and the open, whose own
 * judgement of what the GET reads could not see it yet, has it read no more ({@link MergedSession#stopReading}, what
 * was held of it dropped and counted). With no GET attached every stream opens and is carried: what is held is judged
 * by the GET that takes it ({@link MergedGetAccess}, at its start).
 *
 * <p>Runs on the thread that opens the stream, or the one the judgement completes on; never blocks.
 */
final class GetReadGate {

	private static final Logger log = LoggerFactory.getLogger(GetReadGate.class);

	/** The attached GET's access and what it refused; one object, so that a new GET starts with no refusal. */
	private record Judge(MergedGetAccess access, Set<String> refused) {
	}

	/** The attached GET's judge, or none. */
	private final AtomicReference<Judge> attached = new AtomicReference<>();

	/** {@code access}, the attached GET's, judges the streams opened from now on, until {@link #notJudgedBy}. */
	void judgedBy(MergedGetAccess access) {
		attached.set(new Judge(access, ConcurrentHashMap.newKeySet()));
	}

	/** {@code access}'s GET ended: it judges nothing more (unless another GET's took its place). */
	void notJudgedBy(MergedGetAccess access) {
		attached.updateAndGet(judge -> judge != null && judge.access() == access ? null : judge);
	}

	/** The client opened its GET again: the one attached before judges nothing more; the new one from its start. */
	void superseded() {
		attached.set(null);
	}

	/** Whether the attached GET refused {@code member}: its stream is read, and nothing of it goes to the GET. */
	boolean refuses(String member) {
		Judge judge = attached.get();
		return judge != null && judge.refused().contains(member);
	}

	/**
	 * Runs {@code open}, {@code member}'s stream's opening on {@code session}, carried on the attached GET if that GET
	 * may read it now, else refused there.
	 *
	 * @return whether the stream is carried to the client (on the attached GET, or held for the next with none):
	 * {@code false} when the attached GET refused it, or its judgement failed (refused likewise)
	 */
	Mono<Boolean> open(MergedSession session, String member, Runnable open) {
		Judge judging = attached.get();
		if (judging == null) {
			open.run();
			return Mono.just(true);
		}
		Sinks.One<Boolean> carried = Sinks.one();
		judging.access().mayRead(member).subscribe(may -> {
			if (!may) {
				refuse(session, judging, member, open, null);
				carried.tryEmitValue(false);
				return;
			}
			open.run();
			carried.tryEmitValue(true);
			judgedByNewer(session, judging, member);
			judging.access().mayRead(member)
				.filter(still -> !still)
				.subscribe(lost -> session.stopReading(Set.of(member)::contains, UndeliveredMessages.ACCESS_WITHDRAWN),
						error -> log.debug("Virtual server '{}': whether the client's GET may still read member '{}' "
								+ "could not be judged: {}", session.virtualId(), member, error.getMessage()));
		}, error -> {
			refuse(session, judging, member, open, error);
			carried.tryEmitValue(false);
		});
		return carried.asMono();
	}

	/** Opens {@code member}'s stream refused on {@code judging}'s GET (refused first: nothing of it slips through). */
	private void refuse(MergedSession session, Judge judging, String member, Runnable open, Throwable error) {
		if (error == null) {
			log.debug("Virtual server '{}': member '{}' is not read on the client's GET, whose access may not use it; "
					+ "what it asks the client is answered to it with an error", session.virtualId(), member);
		}
		else {
			log.debug("Virtual server '{}': whether the client's GET may read member '{}' could not be judged ({}); it is "
					+ "not read on that GET", session.virtualId(), member, error.getMessage());
		}
		judging.refused().add(member);
		open.run();
		judgedByNewer(session, judging, member);
	}

	/**
	 * After {@code member}'s stream opened as {@code judging} said: if another GET attached meanwhile (its own judgement
	 * of what the session reads, at its start, may have missed this stream), that GET judges it too, and a member it
	 * may not read is read no more (what was held of it answered and counted, {@link MergedSession#stopReading}).
	 */
	private void judgedByNewer(MergedSession session, Judge judging, String member) {
		Judge now = attached.get();
		if (now == null || now == judging) {
			return;
		}
		now.access().mayRead(member)
			.filter(may -> !may)
			.subscribe(no -> session.stopReading(Set.of(member)::contains, UndeliveredMessages.GET_MAY_NOT_READ),
					error -> session.stopReading(Set.of(member)::contains, UndeliveredMessages.GET_MAY_NOT_READ));
	}

}
