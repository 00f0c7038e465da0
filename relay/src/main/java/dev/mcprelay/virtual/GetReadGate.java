package dev.mcprelay.virtual;

import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which member streams open on a merged session ({@link MergedSession#open}): while a client GET is attached, only
 * those of the members that GET's own access may read now ({@link MergedGetAccess#mayRead}: the credential that opened
 * the GET, judged on the configuration current now), whichever request opens them: a call admitted before a reload
 * that narrowed its caller (review 44o O-H1), a call of another credential of the same caller (a wider token of the
 * same subject, O-H2), a member joined late or again, one given back. A member the GET may not read is not opened: the
 * session does not read it, as for a member {@link MergedSession#keepOnly} left (it stays joined; a call to it goes on,
 * its answer on the call's own stream), and the GET runs on. Once open, the member is judged again: a reload made
 * current between the judgement and the open, whose own judgement of what the GET reads could not see it yet, has it
 * read no more ({@link MergedSession#stopReading}, what was held of it dropped and counted). With no GET attached every
 * stream opens: what is held is judged by the GET that takes it ({@link MergedGetAccess}, at its start).
 *
 * <p>Runs on the thread that opens the stream, or the one the judgement completes on; never blocks.
 */
final class GetReadGate {

	private static final Logger log = LoggerFactory.getLogger(GetReadGate.class);

	/** The attached GET's access, or none. */
	private final AtomicReference<MergedGetAccess> attached = new AtomicReference<>();

	/** {@code access}, the attached GET's, judges the streams opened from now on, until {@link #notJudgedBy}. */
	void judgedBy(MergedGetAccess access) {
		attached.set(access);
	}

	/** {@code access}'s GET ended: it judges nothing more (unless another GET's took its place). */
	void notJudgedBy(MergedGetAccess access) {
		attached.compareAndSet(access, null);
	}

	/** The client opened its GET again: the one attached before judges nothing more; the new one from its start. */
	void superseded() {
		attached.set(null);
	}

	/** Runs {@code open}, {@code member}'s stream's opening on {@code session}, if the attached GET may read it now. */
	void open(MergedSession session, String member, Runnable open) {
		MergedGetAccess judging = attached.get();
		if (judging == null) {
			open.run();
			return;
		}
		judging.mayRead(member).subscribe(may -> {
			if (!may) {
				log.debug("Virtual server '{}': member '{}' is not read on the client's GET, whose access may not use it",
						session.virtualId(), member);
				return;
			}
			open.run();
			judging.mayRead(member)
				.filter(still -> !still)
				.subscribe(lost -> session.stopReading(Set.of(member)::contains), error -> unjudged(session, member, error));
		}, error -> unjudged(session, member, error));
	}

	private static void unjudged(MergedSession session, String member, Throwable error) {
		log.debug("Virtual server '{}': whether the client's GET may read member '{}' could not be judged: {}",
				session.virtualId(), member, error.getMessage());
	}

}
