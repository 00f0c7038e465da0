package dev.mcprelay.live;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;

/**
 * The opening a live reload test class shares with the others, as a JUnit extension on a static field
 * ({@code @RegisterExtension}): before the class, the test's real peers are started in the order given
 * ({@link #peer}), then a relay on a mounted configuration made from them ({@link MountedRelay}, on a folder of its
 * own); before each test the file holds the configuration the relay started on again, and that reload is awaited, so
 * that no test sees another's edit; after the class the relay stops, then the peers in reverse order, and the folder
 * is deleted. What a test does most, swap the file and await the reload's outcome, is {@link #reload}. A peer may be
 * a folder the relay reads besides its file (a Secret mounted as a config tree), named by an {@link #argument}.
 */
final class LiveReloadFixture implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private final Supplier<String> starting;

	private final List<Supplier<String>> arguments = new ArrayList<>();

	private final List<Callable<? extends AutoCloseable>> peerStarts = new ArrayList<>();

	private final Deque<AutoCloseable> running = new ArrayDeque<>();

	private Path mount;

	private MountedRelay relay;

	private LiveReloadFixture(Supplier<String> starting, String... arguments) {
		this.starting = starting;
		for (String argument : arguments) {
			this.arguments.add(() -> argument);
		}
	}

	/**
	 * A relay that starts on {@code configuration} (asked for once the peers run, and again before each test) with
	 * these command-line arguments.
	 */
	static LiveReloadFixture startingOn(Supplier<String> configuration, String... arguments) {
		return new LiveReloadFixture(configuration, arguments);
	}

	/**
	 * A peer the relay's configuration names, started before it (typically {@code () -> upstream = new ...}, which
	 * keeps it in the test's own field too) and closed after it.
	 */
	LiveReloadFixture peer(Callable<? extends AutoCloseable> start) {
		peerStarts.add(start);
		return this;
	}

	/**
	 * A command-line argument of the relay, asked for once the peers run (one that names what a peer made: a folder it
	 * mounted), after those given to {@link #startingOn}.
	 */
	LiveReloadFixture argument(Supplier<String> argument) {
		arguments.add(argument);
		return this;
	}

	/** The running relay. */
	MountedRelay relay() {
		return relay;
	}

	/** A client of the relay with no credentials. */
	RawHttp http() {
		return relay.http();
	}

	/** A client of the relay that sends {@code header} with {@code value} on each request (a key, a token). */
	RawHttp http(String header, String value) {
		return new RawHttp(TwoRelaysOverRedis.port(relay.context()), header, value);
	}

	/** Swaps the mounted file to {@code yaml} as the kubelet does; waits for the reload to end with {@code outcome}. */
	void reload(String yaml, String outcome) throws Exception {
		relay.awaitOutcome(() -> relay.swap(yaml), outcome);
	}

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		for (Callable<? extends AutoCloseable> start : peerStarts) {
			running.push(start.call());
		}
		mount = Files.createTempDirectory("mounted-relay");
		relay = MountedRelay.start(mount, starting.get(),
				arguments.stream().map(Supplier::get).toArray(String[]::new));
	}

	@Override
	public void beforeEach(ExtensionContext context) throws Exception {
		relay.restore(starting.get());
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		try {
			if (relay != null) {
				relay.close();
			}
			while (!running.isEmpty()) {
				running.pop().close();
			}
		}
		finally {
			if (mount != null) {
				delete(mount);
			}
		}
	}

	/** Deletes {@code folder} and everything in it (links themselves, never what they point to). */
	static void delete(Path folder) throws IOException {
		try (Stream<Path> paths = Files.walk(folder)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
	}

}
