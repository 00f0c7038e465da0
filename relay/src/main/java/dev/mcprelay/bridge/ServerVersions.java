package dev.mcprelay.bridge;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.jsonrpc.ProtocolVersions;

/**
 * The MCP protocol versions one Streamable HTTP server speaks, as far as the relay knows them: pinned by
 * {@code mcp-relay.servers.<id>.protocol-versions}, or else learnt from the server's own answers (the versions a
 * refused {@code initialize} names in {@code error.data.supported}, the {@code supportedVersions} of its
 * {@code server/discover}, the version its {@code initialize} answers) and remembered for the server, on this replica,
 * until the relay stops or the server's answers contradict them. Pinned versions are never replaced by learnt ones.
 *
 * <p>Learnt versions are revised when the server answers as a server of the other generation (it was redeployed):
 * replaced by the versions a later answer names ({@link #learn}), or forgotten, to be learnt again, when an answer
 * shows only that the server no longer speaks them ({@link #forget}). A server that lies, or a fleet of both
 * generations behind one URL, cannot make the relay change its mind on every request: at most
 * {@value #MAX_REVISIONS} revisions per {@link #REVISION_WINDOW} per server (further ones are ignored, logged once at
 * WARN), and the exchange that would prove a revision (an {@code initialize}, a {@code server/discover} the relay
 * asks on its own) is spent at most once per {@link #PROBE_INTERVAL} ({@link #mayProbe}). Thread-safe: read on every
 * bridged request, written when an answer teaches something.
 */
public final class ServerVersions {

	private static final Logger log = LoggerFactory.getLogger(ServerVersions.class);

	/** What a version looks like on the wire; anything else a server names is not remembered. */
	private static final Pattern VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

	/** The most versions remembered for one server, whatever it names. */
	static final int MAX_VERSIONS = 16;

	/** The most revisions of learnt versions in one {@link #REVISION_WINDOW}. */
	static final int MAX_REVISIONS = 3;

	/** The time over which revisions are counted. */
	static final Duration REVISION_WINDOW = Duration.ofMinutes(10);

	/** The least time between two exchanges spent to prove that known versions are wrong. */
	public static final Duration PROBE_INTERVAL = Duration.ofSeconds(10);

	private final String serverId;

	private final boolean pinned;

	private volatile Set<String> versions;

	private final LongSupplier nanoClock;

	/** When the last revisions were made (nano time), oldest first; guarded by {@code this}. */
	private final Deque<Long> revisions = new ArrayDeque<>();

	/** When an exchange was last spent to prove known versions wrong; guarded by {@code this}. */
	private long lastProbe;

	private boolean probed;

	/**
	 * Whether the known versions came only from a {@code server/discover} answer ({@link #learnNewGeneration}), which
	 * names the new generation's versions and proves nothing of the session era: session-era clients are then relayed
	 * as they speak until an answer of the server's to one of them ({@link #learn}) proves it speaks none.
	 */
	private volatile boolean sessionEraUnproven;

	/** Whether reaching the bound was logged since the last revision made ({@link #boundReached}); guarded by {@code this}. */
	private boolean refusalLogged;

	/** @param pinned the server's {@code protocol-versions}, empty when the relay is to learn them */
	public ServerVersions(String serverId, List<String> pinned) {
		this(serverId, pinned, System::nanoTime);
	}

	ServerVersions(String serverId, List<String> pinned, LongSupplier nanoClock) {
		this.serverId = serverId;
		this.pinned = !pinned.isEmpty();
		this.versions = Set.copyOf(pinned);
		this.nanoClock = nanoClock;
	}

	/** The versions known now: pinned, learnt, or none yet. */
	public Set<String> known() {
		return versions;
	}

	/**
	 * Whether a client speaking {@code clientVersion} needs the bridge to this server: the server's versions are known
	 * and none of them belongs to the client's generation. Unknown versions bridge nothing.
	 */
	public boolean bridges(String clientVersion) {
		Set<String> known = versions;
		return !known.isEmpty() && !ProtocolVersions.sameEraIn(clientVersion, known)
				&& (ProtocolVersions.isPerRequest(clientVersion) || !sessionEraUnproven);
	}

	/**
	 * Whether the operator pinned versions of {@code clientVersion}'s generation: a client of that generation is then
	 * relayed as it speaks, and a session the bridge gave it under other versions (before a reload pinned these)
	 * cannot continue ({@code SessionBridge}).
	 */
	public boolean pinnedToEraOf(String clientVersion) {
		return pinned && ProtocolVersions.sameEraIn(clientVersion, versions);
	}

	/**
	 * Whether the operator pinned versions of the session era (2025-11-25 and before): no session the bridge gave a
	 * 2025 client can continue ({@code SessionBridge}), whichever request of it comes first.
	 */
	public boolean pinnedToSessionEra() {
		return pinned && pinsSessionEra(List.copyOf(versions));
	}

	/**
	 * Whether {@code pinned} (a server's {@code protocol-versions}) names a version of the session era (2025-11-25 and
	 * before): the sessions the bridge gave 2025 clients of the server cannot continue under such a pin.
	 */
	public static boolean pinsSessionEra(List<String> pinned) {
		return pinned.stream().anyMatch(version -> !ProtocolVersions.isPerRequest(version));
	}

	/**
	 * Remembers the versions an answer of the server named (ignored when they are pinned): only strings shaped as
	 * versions, at most {@value #MAX_VERSIONS}. Learnt versions that differ are a revision, made within the bound (else
	 * ignored). A change is logged once, at INFO.
	 */
	public void learn(Collection<String> named) {
		if (pinned || named == null) {
			return;
		}
		Set<String> learnt = new TreeSet<>();
		for (String version : named) {
			if (version != null && VERSION.matcher(version).matches() && learnt.size() < MAX_VERSIONS) {
				learnt.add(version);
			}
		}
		Set<String> before;
		synchronized (this) {
			before = versions;
			if (learnt.isEmpty()) {
				return;
			}
			if (learnt.equals(before)) {
				// an answer that names them proves what a server/discover answer left open
				sessionEraUnproven = false;
				return;
			}
			if (!before.isEmpty() && !revise()) {
				return;
			}
			versions = Set.copyOf(learnt);
			sessionEraUnproven = false;
		}
		if (before.isEmpty()) {
			log.info("MCP server '{}' speaks protocol versions {} (learnt from its answer)", serverId, learnt);
		}
		else {
			log.info("MCP server '{}' speaks protocol versions {} now (learnt from its answer; it spoke {})", serverId,
					learnt, new TreeSet<>(before));
		}
	}

	/**
	 * Remembers the new generation's versions a {@code server/discover} answer named (the relay's own probe,
	 * {@code ModernProbe}): a server may serve session-era clients too and name only its 2026 versions there (the
	 * TypeScript SDK does), so the answer adds what it names of the new generation to what is known and narrows
	 * nothing: session-era versions already learnt stay, and when none is known, session-era clients are still relayed
	 * as they speak ({@link #bridges}) until the server refuses one naming its versions ({@link #learn}). Ignored when
	 * pinned; adding to known versions is a revision, made within the bound.
	 */
	public void learnNewGeneration(Collection<String> named) {
		if (pinned || named == null) {
			return;
		}
		Set<String> before;
		Set<String> learnt;
		synchronized (this) {
			before = versions;
			learnt = new TreeSet<>(before);
			for (String version : named) {
				if (version != null && VERSION.matcher(version).matches() && ProtocolVersions.isPerRequest(version)
						&& learnt.size() < MAX_VERSIONS) {
					learnt.add(version);
				}
			}
			if (learnt.equals(before) || (!before.isEmpty() && !revise())) {
				return;
			}
			if (before.isEmpty()) {
				sessionEraUnproven = true;
			}
			versions = Set.copyOf(learnt);
		}
		log.info("MCP server '{}' speaks protocol versions {} (learnt from its server/discover; it spoke {} as far as "
				+ "known)", serverId, learnt, new TreeSet<>(before));
	}

	/**
	 * Forgets the learnt versions, which an answer of the server contradicted without naming others (it refused the
	 * relay's {@code server/discover} as a session-era server does): they are learnt again from its next answers, and
	 * meanwhile every client is relayed as it speaks. A revision, made within the bound.
	 *
	 * @param why what the server answered, for the log
	 * @return whether they were forgotten: not when pinned, unknown already, or past the bound
	 */
	public boolean forget(String why) {
		Set<String> before;
		synchronized (this) {
			before = versions;
			if (pinned || before.isEmpty() || !revise()) {
				return false;
			}
			versions = Set.of();
			sessionEraUnproven = false;
		}
		log.info("MCP server '{}' no longer speaks protocol versions {} as learnt ({}): they are learnt again from its "
				+ "answers", serverId, new TreeSet<>(before), why);
		return true;
	}

	/**
	 * Whether an exchange may be spent now to prove the known versions wrong (an answer contradicted them): not for
	 * pinned or unknown versions, not past the bound of revisions (the first time, logged at WARN), and once per
	 * {@link #PROBE_INTERVAL}; a {@code true} counts as that exchange.
	 */
	public synchronized boolean mayProbe() {
		if (pinned || versions.isEmpty()) {
			return false;
		}
		if (!withinBound()) {
			boundReached();
			return false;
		}
		long now = nanoClock.getAsLong();
		if (probed && now - lastProbe < PROBE_INTERVAL.toNanos()) {
			return false;
		}
		probed = true;
		lastProbe = now;
		return true;
	}

	/** Counts a revision when the bound allows one now; holds {@code this}. */
	private boolean revise() {
		if (!withinBound()) {
			boundReached();
			return false;
		}
		revisions.addLast(nanoClock.getAsLong());
		refusalLogged = false;
		return true;
	}

	/**
	 * Logs, once until the next revision made, that an answer contradicted the known versions past the bound, whether
	 * it stopped the check of the refusal ({@link #mayProbe}) or the revision itself ({@link #revise}): the server,
	 * its versions as known, and until when they stay so (review 46l, N3: the check stopped first, and nothing was
	 * logged). Holds {@code this}, past {@link #withinBound}.
	 */
	private void boundReached() {
		if (refusalLogged) {
			return;
		}
		refusalLogged = true;
		Duration left = Duration.ofNanos(Math.max(0,
				revisions.peekFirst() + REVISION_WINDOW.toNanos() - nanoClock.getAsLong()));
		log.warn("MCP server '{}' answered against its protocol versions {} again: they were revised {} times in {}, "
				+ "and stay as they are, unchecked, until {} ({} s from now); meanwhile its clients get its answers as "
				+ "it gives them, its refusals included, and the sessions bridged to it are not ended (a server that "
				+ "changes generation this often, or servers of both behind one URL: pin them with protocol-versions)",
				serverId, new TreeSet<>(versions), MAX_REVISIONS, REVISION_WINDOW,
				Instant.now().plus(left).truncatedTo(ChronoUnit.SECONDS), left.toSeconds());
	}

	/** Whether fewer than {@value #MAX_REVISIONS} revisions were made in the window that ends now; holds {@code this}. */
	private boolean withinBound() {
		long now = nanoClock.getAsLong();
		while (!revisions.isEmpty() && now - revisions.peekFirst() >= REVISION_WINDOW.toNanos()) {
			revisions.removeFirst();
		}
		return revisions.size() < MAX_REVISIONS;
	}

}
