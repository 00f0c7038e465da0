package dev.mcprelay.live;

import java.util.List;

import dev.mcprelay.config.ConfigurationProblem;
import dev.mcprelay.config.RelayProperties;

/**
 * One part of a {@link ConfigurationSnapshot} that is compiled from the bound properties (the server registry and its
 * routes, the API keys, compiled policies, rate-limit rules, tool filters, injection, virtual servers, tool search):
 * the component that uses the part is its compiler and declares itself by implementing this interface (a Spring bean);
 * what it compiles lives in the snapshot, never in the component.
 *
 * <p>When it runs: {@link #problems} and {@link #compile} run once per snapshot, at start-up and at each reload, on
 * the thread that applies it (never an event loop: compiling may block, e.g. to seed a random generator). A request
 * reads the part of the snapshot it took at its first byte, with {@link #of}; nothing else of the request's is
 * reachable from here.
 *
 * <p>The contract: {@link #problems} names what this part cannot compile, by property path, before anything of the
 * new snapshot is compiled (a reload with any problem is refused whole); {@link #compile} must then succeed, returns an
 * immutable value, and may reuse what the previous snapshot compiled ({@link SnapshotCompilation#previous}) where its
 * properties did not change: state that must outlive a reload (a rate-limit bucket, a bridged session) is carried that
 * way, and an object that is the same object in both snapshots is, to every open request, unchanged.
 * {@link #replaced} runs once the new snapshot is the current one, with both values, for what the part must end
 * because it is gone (the open streams of a removed server, of a revoked key); it must not block and must not fail.
 *
 * @param <T> what the part compiles
 */
public interface SnapshotPart<T> {

	/** A short name for logs: what the part holds ({@code servers}, {@code api-keys}, ...). */
	String partName();

	/**
	 * What this part cannot compile in {@code properties}, by property path (the start-up check has already run on
	 * them); none by default.
	 */
	default List<ConfigurationProblem> problems(RelayProperties properties) {
		return List.of();
	}

	/** Compiles this part for the snapshot being built; other parts it needs are read from {@code compilation}. */
	T compile(SnapshotCompilation compilation);

	/**
	 * Called once {@code next} is current, when it is not the same object as {@code previous}: ends what the
	 * previous snapshot governed and the new one no longer allows. Nothing to do by default.
	 */
	default void replaced(T previous, T next) {
	}

	/** This part as {@code snapshot} compiled it: the request's view, read with no lock and no copy. */
	default T of(ConfigurationSnapshot snapshot) {
		return snapshot.part(this);
	}

}
