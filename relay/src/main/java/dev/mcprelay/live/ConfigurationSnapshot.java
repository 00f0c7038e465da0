package dev.mcprelay.live;

import java.util.IdentityHashMap;
import java.util.Map;

import dev.mcprelay.config.RelayProperties;

/**
 * One whole, validated configuration of the relay, immutable: the bound {@link RelayProperties} and every part
 * compiled from them ({@link SnapshotPart}), built together and never changed. A request takes the current snapshot
 * once, at its first byte ({@code web.McpRoutes}, with its routing decision), carries it on its exchange
 * ({@code RelayExchange.configuration()}) and reads every setting from it to its end: a reload while it runs changes
 * nothing it sees; the next request sees the new snapshot whole (DESIGN section 13).
 *
 * <p>Snapshots are built and swapped by {@link LiveConfiguration} only. The {@link #checksum()} is the same on two
 * replicas that bound the same values, whatever files and variables they came from.
 */
public final class ConfigurationSnapshot {

	private final RelayProperties properties;

	private final String checksum;

	private final long generation;

	private final Map<SnapshotPart<?>, Object> parts;

	ConfigurationSnapshot(RelayProperties properties, String checksum, long generation,
			IdentityHashMap<SnapshotPart<?>, Object> parts) {
		this.properties = properties;
		this.checksum = checksum;
		this.generation = generation;
		this.parts = parts;
	}

	/** The bound, validated properties this snapshot was compiled from. */
	public RelayProperties properties() {
		return properties;
	}

	/** The checksum of the bound values ({@link ConfigurationChecksum}): equal on replicas running the same ones. */
	public String checksum() {
		return checksum;
	}

	/** 1 for the configuration the relay started with, one more for each snapshot applied since. */
	public long generation() {
		return generation;
	}

	/** What {@code part} compiled for this snapshot. */
	@SuppressWarnings("unchecked")
	public <T> T part(SnapshotPart<T> part) {
		Object value = parts.get(part);
		if (value == null && !parts.containsKey(part)) {
			throw new IllegalArgumentException("Not a part of this configuration: " + part.partName());
		}
		return (T) value;
	}

	@Override
	public String toString() {
		return "ConfigurationSnapshot[" + generation + ", " + checksum + "]";
	}

}
