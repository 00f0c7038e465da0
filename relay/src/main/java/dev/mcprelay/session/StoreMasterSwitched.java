package dev.mcprelay.session;

/**
 * The Sentinels named another master for the store's Redis ({@code +switch-master}), and Spring Data Redis's shared
 * connections were closed so that their next command connects to {@code address}: a user of the store that keeps a
 * connection of its own opens it again. Published by {@link SentinelMasterSwitches}, off the event loops, before the
 * store's {@link StoreHold hold} is released.
 *
 * @param master the name the Sentinels watch the master under ({@code spring.data.redis.sentinel.master})
 * @param address the new master's {@code host:port}
 */
public record StoreMasterSwitched(String master, String address) {
}
