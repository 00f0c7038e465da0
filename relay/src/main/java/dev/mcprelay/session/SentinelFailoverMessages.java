package dev.mcprelay.session;

import io.lettuce.core.pubsub.RedisPubSubAdapter;

/**
 * Hands the messages of the Sentinels' failover channels ({@link SentinelMasterSwitches#SWITCHED},
 * {@link SentinelMasterSwitches#PROMOTING}, {@link SentinelMasterSwitches#ABORTED}) about {@code master} to
 * {@link SentinelMasterSwitches}, which checks each (a message about another master is ignored). Runs on the
 * subscription's event loop: the switches it calls never block.
 */
final class SentinelFailoverMessages extends RedisPubSubAdapter<String, String> {

	private final SentinelMasterSwitches switches;

	private final String master;

	SentinelFailoverMessages(SentinelMasterSwitches switches, String master) {
		this.switches = switches;
		this.master = master;
	}

	@Override
	public void message(String channel, String message) {
		if (SentinelMasterSwitches.SWITCHED.equals(channel)) {
			switches.switched(master, message);
		}
		else if (SentinelMasterSwitches.PROMOTING.equals(channel)) {
			switches.promoting(master, message);
		}
	}

	@Override
	public void message(String pattern, String channel, String message) {
		switches.aborted(master, channel, message);
	}

}
