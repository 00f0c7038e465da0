package dev.mcprelay.virtual;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a reload does to the virtual sessions' streams on this replica ({@link MergedStreams}): a session whose version
 * it ended ends, or carries on in the successor, as {@link VirtualSessionEnds} says (the verdict its client's GET and
 * its calls through members follow too), its client told that its lists may have changed; a session whose virtual
 * server only gained or lost members is told each list that bears on it. Runs on the reload's thread, or on the
 * thread that brings the store's answer; never blocks.
 */
final class MergedSessionReloads {

	private static final Logger log = LoggerFactory.getLogger(MergedSessionReloads.class);

	/** The sessions with a stream on this replica (a live view). */
	private final Collection<MergedSession> sessions;

	private final VirtualSessionEnds ends;

	private final MemberLists lists;

	MergedSessionReloads(Collection<MergedSession> sessions, VirtualSessionEnds ends, MemberLists lists) {
		this.sessions = sessions;
		this.ends = ends;
		this.lists = lists;
	}

	/**
	 * A reload removed or changed {@code server}: the streams here of its sessions on that version end (their GETs
	 * heard it first, and were counted), what they held counted as the session's end's ({@code session_ended}); but
	 * a session that carries on in the changed virtual server ({@link SessionServer}: opened under its new settings on
	 * a replica that applied them first, and not ended there since) keeps its stream, moved onto the new version.
	 */
	void retired(VirtualServer server) {
		sessions.stream().filter(session -> session.server().version() == server.version()).forEach(this::endOrCarryOn);
	}

	/**
	 * {@code session}, new here, if a reload ended its virtual server's version before it began: it ends, or carries
	 * on in the successor ({@link #endOrCarryOn}).
	 */
	void endIfRetired(MergedSession session) {
		if (session.server().version().isEnded()) {
			endOrCarryOn(session);
		}
	}

	/**
	 * {@code session}'s version ended: as {@link VirtualSessionEnds#follow} says (at once by its terms; else once the
	 * store said whether another replica ended it meanwhile, the answer its GET and calls got first), it ends, or
	 * carries on in the successor, its client told to list again (once, also if the successor ended meanwhile).
	 */
	private void endOrCarryOn(MergedSession session) {
		ends.follow(session.server(), session.sessionId(), session.virtualSession().terms(), elsewhere -> {
			if (elsewhere) {
				log.info("Virtual server '{}' was changed by a configuration reload: a session that ended elsewhere "
						+ "meanwhile (another replica ended it as it applied newer settings) ends here too",
						session.virtualId());
			}
			session.end(UndeliveredMessages.SESSION_ENDED);
		}, session::carryOn, next -> {
			log.info("Virtual server '{}' was changed by a configuration reload: a session opened under its new "
					+ "settings (on a replica that applied them first) keeps its stream here, told that its lists "
					+ "may have changed", session.virtualId());
			tellChanged(session, list -> true);
		});
	}

	/**
	 * A reload changed {@code server}'s members but not its version ({@code changed} joined or left it): the open
	 * streams of its sessions here tell their clients each list that may have changed with them
	 * ({@code notifications/<list>/list_changed}, held for a client whose GET is away), so that they list it again and
	 * see the members it has now. A list is told when the session's {@code initialize} result announced it and a member
	 * that joined or left offers it (or has not been seen to join here, so may: {@link MemberLists#mayOffer}). A
	 * session stored without what it announced is told its tool list only.
	 */
	void regrouped(VirtualServer server, List<String> changed) {
		sessions.stream()
			.filter(session -> session.server().version() == server.version())
			.forEach(session -> tellChanged(session,
					list -> changed.stream().anyMatch(member -> lists.mayOffer(member, list))));
	}

	/** Tells {@code session}'s client that each of its lists that {@code mayHaveChanged} may have changed. */
	private static void tellChanged(MergedSession session, Predicate<String> mayHaveChanged) {
		List<ObjectNode> told = MemberLists.changed(session.virtualSession().announced(), mayHaveChanged);
		if (!told.isEmpty()) {
			session.tell(told);
		}
	}

}
