package dev.mcprelay.live;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.mcprelay.McpRelayApplication;
import dev.mcprelay.testsupport.OwnEventLoops;
import dev.mcprelay.testsupport.RawHttp;
import dev.mcprelay.testsupport.TwoRelaysOverRedis;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A running relay whose configuration is a Kubernetes-style mounted volume: {@code application.yml} a link into
 * {@code ..data}, itself a link the kubelet swaps to a new folder ({@link #swap}); an operator may also edit the file
 * in place ({@link #editInPlace}). What a test waits for of its reloads: {@link #awaitOutcome}.
 */
final class MountedRelay implements AutoCloseable {

	private final Path mount;

	private final KubeletVolume volume;

	private final ConfigurableApplicationContext context;

	/** What the mounted file holds now. */
	private String written;

	private MountedRelay(Path mount, String yaml, String... arguments) throws Exception {
		this.mount = mount;
		this.volume = new KubeletVolume(mount);
		swap(yaml);
		String[] all = new String[arguments.length + 1];
		all[0] = "--spring.config.additional-location=file:" + mount.resolve("application.yml");
		System.arraycopy(arguments, 0, all, 1, arguments.length);
		this.context = new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class).run(all);
	}

	/**
	 * Starts a relay on {@code yaml}, mounted in {@code mount} (an empty folder), with these command-line arguments, and
	 * waits until it is ready, as a load balancer would before sending it traffic (over a shared store, a request
	 * before its connection is open and answers may be refused {@code session_store_unavailable}: a busy machine takes
	 * longer than the store's per-command bound to open it).
	 */
	static MountedRelay start(Path mount, String yaml, String... arguments) throws Exception {
		MountedRelay relay = new MountedRelay(mount, yaml, arguments);
		TwoRelaysOverRedis.awaitReady(relay.context);
		return relay;
	}

	ConfigurableApplicationContext context() {
		return context;
	}

	RawHttp http() {
		return new RawHttp(TwoRelaysOverRedis.port(context));
	}

	/** What the mounted file holds now. */
	String written() {
		return written;
	}

	/** The snapshot requests starting now run on. */
	ConfigurationSnapshot current() {
		return context.getBean(LiveConfiguration.class).current();
	}

	String checksum() {
		return current().checksum();
	}

	double streamsEnded(String server) {
		var counter = context.getBean(MeterRegistry.class).find("mcp.relay.streams.ended").tag("server", server)
			.counter();
		return counter == null ? 0 : counter.count();
	}

	/** The requests to {@code server} recorded with {@code outcome} ({@code mcp.relay.requests}, any other tag). */
	double requests(String server, String outcome) {
		return context.getBean(MeterRegistry.class).find("mcp.relay.requests").tag("server", server)
			.tag("outcome", outcome).counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
	}

	double count(String outcome) {
		return context.getBean(MeterRegistry.class).get(ConfigurationReloader.RELOADS).tag("outcome", outcome)
			.counter().count();
	}

	/** Makes the change, then waits for the reload it causes to end with {@code outcome}. */
	void awaitOutcome(Change change, String outcome) throws Exception {
		double before = count(outcome);
		change.make();
		Awaitility.await("a reload " + outcome).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
			.until(() -> count(outcome) > before);
	}

	/** Puts {@code yaml} back unless the file holds it, and waits for the reload that follows (applied or unchanged). */
	void restore(String yaml) throws Exception {
		if (!yaml.equals(written)) {
			double reloads = count(ReloadOutcome.APPLIED) + count(ReloadOutcome.UNCHANGED);
			swap(yaml);
			Awaitility.await("the file as the relay started, reloaded").atMost(Duration.ofSeconds(20))
				.until(() -> count(ReloadOutcome.APPLIED) + count(ReloadOutcome.UNCHANGED) > reloads);
		}
	}

	/** What the kubelet does: the new content in a new folder, then {@code ..data} swapped to it in one rename. */
	void swap(String yaml) throws Exception {
		volume.write(java.util.Map.of("application.yml", yaml));
		written = yaml;
	}

	/** An operator's edit of the file the relay reads, in place. */
	void editInPlace(String yaml) throws Exception {
		Files.writeString(mount.resolve("..data").resolve("application.yml"), yaml);
		written = yaml;
	}

	@Override
	public void close() {
		context.close();
	}

	interface Change {

		void make() throws Exception;

	}

}
