package dev.mcprelay.live;

import dev.mcprelay.config.RelayProperties;

/**
 * What a {@link SnapshotPart} compiles from: the new snapshot's bound, validated properties, the parts of the same
 * snapshot it builds on (compiled on first demand, each once), and what the previous snapshot compiled, to carry over
 * what did not change.
 */
public interface SnapshotCompilation {

	/** The bound properties of the snapshot being built, already validated. */
	RelayProperties properties();

	/** Another part of the same snapshot, compiled now if it was not yet; a cycle between parts fails. */
	<T> T part(SnapshotPart<T> part);

	/** What {@code part} compiled for the current (about to be replaced) snapshot; {@code null} at start-up. */
	<T> T previous(SnapshotPart<T> part);

	/** The current snapshot's properties; {@code null} at start-up. */
	RelayProperties previousProperties();

}
