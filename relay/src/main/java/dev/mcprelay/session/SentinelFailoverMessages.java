package dev.mcprelay.session;

import io.lettuce.core.pubsub.RedisPubSubAdapter;

/**
 * The Sentinels' failover channels the relay subscribes to, and their messages about {@code master} read and handed
 * to {@link SentinelMasterSwitches} (a message about another master is ignored): who is being promoted away from
 * ({@value #PROMOTING}), who was named ({@value #SWITCHED}), a failover given up ({@value #ABORTED}), and each
 * subscription taken (a Sentinel followed, or followed again). Runs on the subscription's event loop: the switches it
 * calls never block.
 */
final class SentinelFailoverMessages extends RedisPubSubAdapter<String, String> {

	/** The Sentinels' channel that names the new master: {@code <master> <old-ip> <old-port> <new-ip> <new-port>}. */
	static final String SWITCHED = "+switch-master";

	/**
	 * The Sentinels' channel that names the replica their leader is about to promote ({@code slave <id> <ip> <port> @
	 * <master> <ip> <port>}, the last two the master's).
	 */
	static final String PROMOTING = "+failover-state-send-slaveof-noone";

	/** The Sentinels' channels that say a failover was given up ({@code master <master> <ip> <port>}). */
	static final String ABORTED = "-failover-abort-*";

	private final SentinelMasterSwitches switches;

	private final String master;

	SentinelFailoverMessages(SentinelMasterSwitches switches, String master) {
		this.switches = switches;
		this.master = master;
	}

	@Override
	public void message(String channel, String message) {
		if (SWITCHED.equals(channel)) {
			String[] parts = message.split(" ");
			if (parts.length == 5 && parts[0].equals(master)) {
				switches.switched(master, parts[3] + ':' + parts[4]);
			}
		}
		else if (PROMOTING.equals(channel)) {
			String of = " @ " + master + ' ';
			int at = message.indexOf(of);
			if (at >= 0) {
				String[] old = message.substring(at + of.length()).split(" ");
				switches.promoting(master, old.length == 2 ? old[0] + ':' + old[1] : null);
			}
		}
	}

	/**
	 * A failover given up: handed on with the address of the master it was about ({@code master <name> <ip> <port>}),
	 * so that only one about the master being failed over ends the hold (review 45l L-3: a misconfigured Sentinel's own
	 * aborted attempt, naming another address, ended a real failover's hold).
	 */
	@Override
	public void message(String pattern, String channel, String message) {
		if (message.startsWith("master " + master + ' ')) {
			String[] parts = message.split(" ");
			switches.aborted(channel, parts.length >= 4 ? parts[2] + ':' + parts[3] : null);
		}
	}

	@Override
	public void subscribed(String channel, long count) {
		if (SWITCHED.equals(channel)) {
			switches.subscribed(master);
		}
	}

}
