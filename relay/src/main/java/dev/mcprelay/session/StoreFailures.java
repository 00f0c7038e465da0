package dev.mcprelay.session;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Why the shared store (Redis) cannot be used, in a sentence an operator acts on: Redis's own refusal (a wrong password,
 * none given, a wrong user), nothing listening, an unknown host, no answer in time (told from a call that waited out
 * its bound while the store was held for a master switch: {@link StoreHeldException}), a Sentinel that knows no such
 * master, a Cluster with hash slots no master serves, each with the properties to check for the store's
 * {@link RedisTopology}, a Sentinel's refusal of its own password told from the master's. From the deepest cause, which
 * is Redis's or the network's own word; never a password (Lettuce's and Redis's messages hold none, and a URI's
 * masked password is written {@code *****} whatever its length), cut to {@value #MAX_LENGTH} characters.
 */
final class StoreFailures {

	static final int MAX_LENGTH = 200;

	private StoreFailures() {
	}

	/** What went wrong, and what to check where Redis runs as {@code topology} says. */
	static String describe(Throwable failure, RedisTopology topology) {
		return describe(failure, topology, topology == RedisTopology.SENTINEL && fromASentinel(failure));
	}

	/**
	 * What went wrong with a connection to one Sentinel (the relay's subscription to it, or its question for the
	 * master): a refused password is the Sentinel's, whatever the error's text says.
	 */
	static String describeSentinel(Throwable failure) {
		return describe(failure, RedisTopology.SENTINEL, true);
	}

	private static String describe(Throwable failure, RedisTopology topology, boolean bySentinel) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			if (root instanceof TimeoutException || root instanceof StoreHeldException) {
				break;
			}
			root = root.getCause();
		}
		if (root instanceof StoreHeldException) {
			return root.getMessage();
		}
		if (root instanceof TimeoutException) {
			return "no answer in time: check that Redis runs at " + topology.properties() + " and is not overloaded";
		}
		String message = root.getMessage() == null ? root.getClass().getSimpleName() : clip(root.getMessage());
		String upper = message.toUpperCase(Locale.ROOT);
		// Lettuce names a Sentinel it could not use ("Cannot connect to a Redis Sentinel"); Redis's refusal is the same
		String refuser = bySentinel ? "a Sentinel" : "Redis";
		String password = refuser.equals("Redis") ? "spring.data.redis.password" : "spring.data.redis.sentinel.password";
		if (upper.startsWith("WRONGPASS") || upper.contains("INVALID PASSWORD")) {
			return refuser + " refused the password (" + message + "): check " + password + " (and "
					+ password.replace("password", "username") + ")";
		}
		if (upper.startsWith("NOAUTH")) {
			return refuser + " wants a password and was given none (" + message + "): set " + password;
		}
		if (root instanceof ConnectException || upper.contains("CONNECTION REFUSED")) {
			return "nothing listens there (" + message + "): check " + topology.properties() + ", and that Redis runs";
		}
		if (root instanceof UnknownHostException) {
			return "the host is unknown (" + message + "): check " + topology.properties();
		}
		if (upper.contains("USING SENTINEL FOR MASTERID")) {
			return "no Sentinel names a master by that name (" + message + "): check spring.data.redis.sentinel.master "
					+ "and nodes";
		}
		if (root instanceof ClusterNotServing || upper.startsWith("CLUSTERDOWN")) {
			return "the cluster cannot serve every hash slot (" + message + "): check its nodes (redis-cli --cluster "
					+ "check) and spring.data.redis.cluster.nodes";
		}
		return message;
	}

	/** Whether a message in {@code failure}'s causes (or what they suppressed) says a Sentinel failed it. */
	private static boolean fromASentinel(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().contains("Sentinel")) {
				return true;
			}
			for (Throwable suppressed : cause.getSuppressed()) {
				if (suppressed.getMessage() != null && suppressed.getMessage().contains("Sentinel")) {
					return true;
				}
			}
		}
		return false;
	}

	/** A Cluster whose nodes do not say {@code cluster_state:ok}: some hash slot has no master that answers. */
	static final class ClusterNotServing extends IllegalStateException {

		ClusterNotServing(String state) {
			super("cluster_state:" + state);
		}

	}

	private static String clip(String text) {
		// Lettuce writes a URI's password as one asterisk per character, after the user name if any: its length is no
		// one's business either
		String line = text.replaceAll("\\s+", " ")
			.replaceAll("(rediss?(-sentinel)?://([^:@/\\s,\\[\\]]*:)?)\\*+@", "$1*****@")
			.strip();
		return line.length() <= MAX_LENGTH ? line : line.substring(0, MAX_LENGTH) + "...";
	}

}
