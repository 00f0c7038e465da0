package dev.mcprelay.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One installer at a time, across threads and across the test JVMs surefire forks ({@code forkCount}): {@code npm ci}
 * empties {@code node_modules} before it fills it, {@code apt-get} refuses a second dpkg, and a venv made twice at once
 * is broken. Held while a test checks whether something is installed and installs it, so the second JVM finds it done.
 *
 * <p>The lock is an OS file lock on {@code target/locks/<name>.lock} (every fork runs in the module's directory, so all
 * see one file), taken after a lock of this JVM's (a file lock is held per process: a second thread of the same JVM
 * would be refused rather than wait). Closing releases both; the OS releases the file lock if the JVM dies.
 */
public final class InstallLock implements AutoCloseable {

	private static final java.util.concurrent.ConcurrentMap<String, ReentrantLock> IN_THIS_JVM =
			new java.util.concurrent.ConcurrentHashMap<>();

	private final ReentrantLock jvmLock;

	private final FileChannel channel;

	private final FileLock fileLock;

	private InstallLock(ReentrantLock jvmLock, FileChannel channel, FileLock fileLock) {
		this.jvmLock = jvmLock;
		this.channel = channel;
		this.fileLock = fileLock;
	}

	/** Waits for and takes the lock called {@code name} (one per thing installed: a package, a directory). */
	public static InstallLock acquire(String name) {
		ReentrantLock jvmLock = IN_THIS_JVM.computeIfAbsent(name, key -> new ReentrantLock());
		jvmLock.lock();
		try {
			Path file = Path.of("target", "locks", name + ".lock").toAbsolutePath();
			Files.createDirectories(file.getParent());
			FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
			try {
				return new InstallLock(jvmLock, channel, channel.lock());
			}
			catch (IOException | RuntimeException ex) {
				channel.close();
				throw ex;
			}
		}
		catch (IOException ex) {
			jvmLock.unlock();
			throw new UncheckedIOException("could not take the install lock " + name, ex);
		}
		catch (RuntimeException ex) {
			jvmLock.unlock();
			throw ex;
		}
	}

	@Override
	public void close() {
		try {
			this.fileLock.release();
			this.channel.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			this.jvmLock.unlock();
		}
	}

}
