package dev.mcprelay.session;

import java.net.ConnectException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Which Sentinels {@link SentinelMasterSwitches} follows (is subscribed to), and why the others are not, for the log and
 * the {@code relayStore} health ({@link #summary()}). A relay that follows no Sentinel does not see a failover: it
 * keeps writing to the old master until the Sentinels demote it, and what it wrote there is lost.
 *
 * <p>A subscription lost after it was taken (its connection dropped: {@link SentinelSubscription}) makes the Sentinel
 * not followed again until a new one is taken, logged at WARN; a loss of a subscription that had lasted less than
 * {@link SubscriptionBackoff#LASTED a minute}, after a loss already logged, is not logged (nor the Sentinel followed
 * again after it), only counted: in the health, and in the next loss logged (review 45g G-1: a Sentinel that answered
 * each check just too late logged a WARN every ~5 s for ever). A Sentinel's refusal (anything but a refused
 * connection: {@code NOPERM}, {@code WRONGPASS}, no answer in time) is logged at WARN with the Sentinel's address and
 * what to check, once per Sentinel and reason until it is followed again (the subscription is tried again, backing
 * off, and a failure for a reason already logged is not logged again, also when the reasons alternate, as behind a
 * proxy that accepts a connection and resets it; at most 8 reasons); a refused connection at DEBUG, since Lettuce's
 * own reconnection says it. Never logs a credential: only addresses and Redis's own error text.
 */
@Component
public class FollowedSentinels {

	/** The channels a Sentinel ACL user needs ({@code &*} grants them all), as an ACL rule. */
	static final String CHANNELS = "&" + SentinelFailoverMessages.SWITCHED + " &" + SentinelFailoverMessages.PROMOTING
			+ " &" + SentinelFailoverMessages.ABORTED;

	/**
	 * The commands a Sentinel ACL user needs, as an ACL rule: to subscribe, to check the subscription is alive
	 * ({@link SentinelSubscription}; a refused {@code PING} is an answer all the same), to ask for the master, and to
	 * ask for it with its configuration epoch ({@code SENTINEL MASTER}: without it, Sentinels that disagree decide
	 * nothing, review 45j J-1).
	 */
	static final String COMMANDS = "+subscribe +psubscribe +ping +sentinel|get-master-addr-by-name +sentinel|master";


	private static final Logger log = LoggerFactory.getLogger(FollowedSentinels.class);

	/** Every Sentinel asked, by {@code host:port}: null reason while followed, else why it is not. */
	private final Map<String, String> sentinels = new ConcurrentSkipListMap<>();

	/** The most refusals of one Sentinel logged between two times it is followed. */
	private static final int MAX_LOGGED_REASONS = 8;

	/** The refusals logged for each Sentinel since it was last followed, by {@code host:port}. */
	private final Map<String, Set<String>> logged = new ConcurrentHashMap<>();

	/** The losses of each Sentinel's subscription, by {@code host:port}. */
	private final Map<String, Losses> losses = new ConcurrentHashMap<>();

	/** The Sentinels whose refusal of a {@code PING} was logged. */
	private final Set<String> pingsRefused = ConcurrentHashMap.newKeySet();

	/**
	 * When the relay was last logged following no Sentinel ({@link #lost}), or null; cleared once that was said to end.
	 */
	private Long noneLoggedAt;

	/** Whether following none was logged and its end not yet. Guarded by {@code this}. */
	private boolean noneLogged;

	/** Whether the relay follows no Sentinel after following one, logged or not. Guarded by {@code this}. */
	private boolean none;

	/** {@link System#nanoTime}, or a test's clock. */
	private final LongSupplier clock;

	public FollowedSentinels() {
		this(System::nanoTime);
	}

	FollowedSentinels(LongSupplier clock) {
		this.clock = clock;
	}

	/** Called once per configured Sentinel before it is first asked. */
	void asking(String sentinel) {
		sentinels.putIfAbsent(sentinel, "not subscribed yet");
	}

	/** {@code sentinel} took the subscription: its failovers are followed. */
	void followed(String sentinel) {
		Set<String> refusals = logged.remove(sentinel);
		String before = sentinels.put(sentinel, "");
		noneFollowedSaid(sentinel);
		// after a loss not logged, only refusals logged since make the following again worth a line
		if (!losses.computeIfAbsent(sentinel, unused -> new Losses()).followed(clock.getAsLong())
				&& (refusals == null || refusals.isEmpty())) {
			return;
		}
		if (before != null && !before.isEmpty() && !before.equals("not subscribed yet")) {
			log.info("The relay follows Sentinel {} again", sentinel);
		}
	}

	/**
	 * Says once when the relay, after following some Sentinel, follows none (each loss may be one not logged), and
	 * when it follows one again; followed no Sentinel again within a minute of saying so, it is not said again (only
	 * the health says it), so a flapping network logs a pair of lines a minute at most.
	 */
	private synchronized void noneFollowedSaid(String sentinel) {
		boolean noneNow = count() == 0;
		if (noneNow == none) {
			return;
		}
		none = noneNow;
		long now = clock.getAsLong();
		if (noneNow && (noneLoggedAt == null || now - noneLoggedAt >= SubscriptionBackoff.LASTED.toNanos())) {
			noneLoggedAt = now;
			noneLogged = true;
			log.warn("The relay follows no Sentinel now ({} the last to go), so it does not see a failover until one takes "
					+ "its subscription again (the relayStore health says why each is not followed)", sentinel);
		}
		else if (!noneNow && noneLogged) {
			noneLogged = false;
			log.info("The relay follows a Sentinel again ({}), after following none", sentinel);
		}
	}

	/** {@code sentinel} refused the subscription (or could not be reached): logged as the class says. */
	void refused(String sentinel, Throwable error) {
		String reason = reason(error);
		sentinels.put(sentinel, reason);
		Set<String> before = logged.computeIfAbsent(sentinel, unused -> ConcurrentHashMap.newKeySet());
		// a few reasons at most: one that varies from one attempt to the next is not kept (nor logged) for ever
		if (before.size() >= MAX_LOGGED_REASONS || !before.add(reason)) {
			return;
		}
		if (refusedConnection(error)) {
			log.debug("Sentinel {} is not followed: {}", sentinel, reason);
			return;
		}
		log.warn("Sentinel {} refused the relay's subscription, so the relay does not see its failovers through it "
				+ "(tried again, backing off up to 4 s while it cannot be reached, 30 s while it refuses): {}", sentinel,
				reason);
	}

	/**
	 * {@code sentinel}'s subscription was lost after it was taken ({@link SentinelSubscription}), as {@code how} says
	 * (its connection closed, or no answer to a check): not followed until it is subscribed again; logged at WARN, as
	 * the relay does not see failovers through it meanwhile.
	 */
	void lost(String sentinel, String how) {
		Losses sentinelLosses = losses.computeIfAbsent(sentinel, unused -> new Losses());
		int quick = sentinelLosses.lost(clock.getAsLong());
		if (quick > 0) {
			sentinels.put(sentinel, "its subscription was lost (" + how + "), " + quick + " times in a row within a "
					+ "minute of subscribing again: subscribing again, backing off (up to 4 s while it cannot be reached, "
					+ "30 s while it answers late)");
			noneFollowedSaid(sentinel);
			return;
		}
		sentinels.put(sentinel, "its subscription was lost (" + how + "): subscribing again");
		noneFollowedSaid(sentinel);
		int before = -quick;
		log.warn("The relay's subscription to Sentinel {} was lost ({}), so the relay does not see its failovers through "
				+ "it until it subscribes again (tried now, backing off up to 4 s while it cannot be reached, 30 s while it "
				+ "answers late){}", sentinel, how,
				before == 0 ? "" : "; since the last time this was logged, it was lost " + before
						+ " more times, each within a minute of subscribing again (not logged)");
	}

	/**
	 * One Sentinel's subscription losses: whether the next loss (and the following again after it) is logged. Guarded
	 * by its own lock.
	 */
	private static final class Losses {

		/** Whether a loss was logged. */
		private boolean lostBefore;

		/** When the Sentinel was last followed, while it is. */
		private Long followedAt;

		/** The losses not logged since the last one logged. */
		private int quiet;

		/** Followed at {@code now}: whether to log it (not after a loss not logged). */
		synchronized boolean followed(long now) {
			followedAt = now;
			return quiet == 0;
		}

		/**
		 * Lost at {@code now}: a loss to log returns minus the losses not logged before it (0 or less); a loss of a
		 * subscription that lasted less than a minute, after one logged, is not logged and returns how many in a row.
		 */
		synchronized int lost(long now) {
			boolean lasted = followedAt == null || now - followedAt >= SubscriptionBackoff.LASTED.toNanos();
			followedAt = null;
			if (lostBefore && !lasted) {
				return ++quiet;
			}
			lostBefore = true;
			int before = quiet;
			quiet = 0;
			return -before;
		}

	}

	/**
	 * {@code sentinel} answered a check of its subscription ({@link SentinelSubscription}) with an error, {@code NOPERM}
	 * for a user not granted {@code +ping} (the ACL the relay documented before it checked its subscriptions): the
	 * subscription still counts as alive, but each check is denied and recorded in the Sentinel's {@code ACL LOG}, so
	 * the first refusal is logged at WARN, with what to grant, once per Sentinel for the relay's life.
	 */
	void pingRefused(String sentinel, Throwable error) {
		if (!pingsRefused.add(sentinel)) {
			return;
		}
		log.warn("Sentinel {} refused the relay's PING ({}): its subscription is still followed, but every check of it "
				+ "is denied and recorded in the Sentinel's ACL LOG; grant the relay's Sentinel user "
				+ "(spring.data.redis.sentinel.username) +ping (ACL SETUSER <user> +ping). Not logged again",
				sentinel, StoreFailures.describeSentinel(error));
	}

	/** How many Sentinels are followed now. */
	int count() {
		return (int) sentinels.values().stream().filter(String::isEmpty).count();
	}

	/** Whether every Sentinel asked refused the subscription (false before the first answer). */
	boolean noneFollowed() {
		return count() == 0 && sentinels.values().stream().anyMatch(why -> !why.equals("not subscribed yet"));
	}

	/**
	 * For the health: {@code "2 of 3 followed"}, with each Sentinel not followed and why; with none followed, that
	 * the relay does not see failovers.
	 */
	String summary() {
		StringBuilder summary = new StringBuilder().append(count()).append(" of ").append(sentinels.size())
			.append(" followed");
		if (count() == 0 && !sentinels.isEmpty()) {
			summary.append(": none, so this relay does not see a failover and writes to the old master until it is demoted");
		}
		sentinels.forEach((sentinel, why) -> {
			if (!why.isEmpty()) {
				summary.append("; ").append(sentinel).append(": ").append(why);
			}
		});
		return summary.toString();
	}

	/**
	 * A Sentinel's refusal and what to check: for its password, the Sentinel's properties; for {@code NOPERM} on a
	 * command, the commands to grant; for {@code NOPERM} on channels, the channels to grant.
	 */
	static String reason(Throwable error) {
		String described = StoreFailures.describeSentinel(error);
		String upper = described.toUpperCase(Locale.ROOT);
		if (!upper.contains("NOPERM")) {
			return described;
		}
		if (upper.contains("CHANNEL")) {
			return described + ": grant the relay's Sentinel user (spring.data.redis.sentinel.username) the channels "
					+ "'&*', or '" + CHANNELS + "' (ACL SETUSER <user> " + CHANNELS + ")";
		}
		return described + ": grant the relay's Sentinel user (spring.data.redis.sentinel.username) the commands '"
				+ COMMANDS + "' (ACL SETUSER <user> " + COMMANDS + ")";
	}

	private static boolean refusedConnection(Throwable error) {
		for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause instanceof ConnectException) {
				return true;
			}
		}
		return false;
	}

}
