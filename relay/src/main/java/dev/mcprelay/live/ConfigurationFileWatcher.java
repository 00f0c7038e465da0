package dev.mcprelay.live;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.stereotype.Component;

/**
 * Watches the configuration files the relay read at start-up ({@link FreshEnvironment#configurationFiles}: files named
 * by {@code spring.config.location}, {@code additional-location} or {@code import}, {@code application.yml} in the
 * working directory, a Secret mounted as a config tree) and reloads ({@link ConfigurationReloader}) when their content
 * changed. It watches the folder that holds each file, not the file: a Kubernetes ConfigMap or Secret volume is updated
 * by the kubelet swapping the {@code ..data} symbolic link to a new folder, which changes no watched file itself. Any
 * event in a watched folder makes it compare the SHA-256 of every watched file's content (links followed) with what it
 * last read; events arriving together (an editor's save, a swap's several renames) are one change: it reloads
 * {@link #DEBOUNCE} after the last of them. A file missing or unreadable at that moment is read as such, and the reload
 * refused; the next change reloads again.
 *
 * <p>It runs on a daemon thread of its own (reading files blocks), from start to stop of the application; a relay
 * started from the jar's own defaults alone has nothing to watch.
 */
@Component
public class ConfigurationFileWatcher implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ConfigurationFileWatcher.class);

	/** How long the watched folders must be quiet before a change is read. */
	static final Duration DEBOUNCE = Duration.ofMillis(300);

	/** How often a configuration folder that cannot be watched is looked for. */
	static final Duration RETRY = Duration.ofSeconds(1);

	private final ConfigurationReloader reloader;

	private final List<Path> files;

	private volatile WatchService watcher;

	private volatile Thread thread;

	ConfigurationFileWatcher(ConfigurationReloader reloader, ConfigurableEnvironment environment) {
		this.reloader = reloader;
		this.files = List.copyOf(FreshEnvironment.configurationFiles(environment));
	}

	@Override
	public void start() {
		if (files.isEmpty()) {
			return;
		}
		try {
			WatchService service = FileSystems.getDefault().newWatchService();
			Set<Path> folders = register(service);
			this.watcher = service;
			String read = checksum();
			Thread watching = new Thread(() -> watch(service, read), "mcp-relay-config-watcher");
			watching.setDaemon(true);
			this.thread = watching;
			watching.start();
			log.info("Watching {} for configuration changes", folders);
		}
		catch (IOException ex) {
			log.warn("Configuration files cannot be watched ({}): reload with POST /actuator/reload", ex.toString());
		}
	}

	/**
	 * Watches the folder of each file as named (where the kubelet swaps {@code ..data}) and the folder it resolves to
	 * now (where an operator edits a linked file in place); again after each change, as a swap moves the latter.
	 */
	private Set<Path> register(WatchService service) throws IOException {
		Set<Path> folders = new LinkedHashSet<>();
		for (Path file : files) {
			folders.add(Files.isDirectory(file) ? file : file.getParent());
			if (Files.exists(file)) {
				Path real = file.toRealPath();
				folders.add(Files.isDirectory(real) ? real : real.getParent());
			}
		}
		for (Path folder : folders) {
			folder.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
					StandardWatchEventKinds.ENTRY_DELETE);
		}
		return folders;
	}

	/**
	 * Waits for a change in the watched folders, then (once they are quiet) registers them again and reloads when the
	 * files' content changed. A folder that cannot be watched (deleted, to be created again: an operator's
	 * {@code rm -r} and copy, a volume remounted) is said at WARN and looked for every {@link #RETRY}, since a deleted
	 * folder's registration is gone and no event would come; once it is back it is watched again, said at WARN too,
	 * and what it holds then is compared as after any change (nothing is read while it is gone).
	 */
	private void watch(WatchService service, String initial) {
		String read = initial;
		boolean watched = true;
		try {
			while (true) {
				var key = watched ? service.take() : service.poll(RETRY.toMillis(), TimeUnit.MILLISECONDS);
				if (key != null) {
					key.pollEvents();
					key.reset();
					// quiet for DEBOUNCE: what arrived together is one change
					for (var next = service.poll(DEBOUNCE.toMillis(), TimeUnit.MILLISECONDS); next != null;
							next = service.poll(DEBOUNCE.toMillis(), TimeUnit.MILLISECONDS)) {
						next.pollEvents();
						next.reset();
					}
				}
				try {
					Set<Path> folders = register(service);
					if (!watched) {
						log.warn("The configuration folders {} are watched again", folders);
					}
					watched = true;
				}
				catch (IOException ex) {
					if (watched) {
						log.warn("A configuration folder cannot be watched now ({}); looking for it again every {}",
								ex.toString(), RETRY);
					}
					watched = false;
				}
				if (!watched) {
					// a folder is gone: what is left is no configuration anyone meant, read it once the folder is back
					continue;
				}
				String now = checksum();
				if (!now.equals(read)) {
					read = now;
					reloader.reload("a configuration file changed");
				}
			}
		}
		catch (InterruptedException | ClosedWatchServiceException ex) {
			// stopped
		}
		catch (RuntimeException ex) {
			log.error("The configuration watcher stopped; reload with POST /actuator/reload", ex);
		}
	}

	/** The SHA-256 of every watched file's content, a folder's files included (its {@code ..} entries excepted). */
	private String checksum() {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			for (Path file : files) {
				digest.update(file.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
				if (Files.isDirectory(file)) {
					try (Stream<Path> entries = Files.list(file)) {
						for (Path entry : entries.filter(entry -> !entry.getFileName().toString().startsWith(".."))
							.filter(Files::isRegularFile).sorted().toList()) {
							digest.update(entry.getFileName().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
							read(entry, digest);
						}
					}
				}
				else {
					read(file, digest);
				}
			}
			return HexFormat.of().formatHex(digest.digest());
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
		catch (IOException ex) {
			return "unreadable: " + ex;
		}
	}

	private static void read(Path file, MessageDigest digest) {
		try (InputStream in = Files.newInputStream(file)) {
			byte[] chunk = new byte[8192];
			for (int n = in.read(chunk); n >= 0; n = in.read(chunk)) {
				digest.update(chunk, 0, n);
			}
		}
		catch (IOException ex) {
			digest.update((byte) 0);
		}
	}

	@Override
	public void stop() {
		WatchService service = watcher;
		if (service != null) {
			try {
				service.close();
			}
			catch (IOException ex) {
				// closing
			}
		}
		Thread watching = thread;
		if (watching != null) {
			watching.interrupt();
		}
		watcher = null;
		thread = null;
	}

	@Override
	public boolean isRunning() {
		return thread != null;
	}

}
