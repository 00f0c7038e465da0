package dev.mcprelay.testsupport;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import reactor.blockhound.BlockHound;

/**
 * Registered for every test class (auto-detected): installs BlockHound once per JVM, before the first class runs, so
 * that a blocking call on a non-blocking thread (Reactor Netty's event loops, Reactor's parallel scheduler) throws
 * {@code BlockingOperationError} in every test, not only in the ones about blocking. The relay turns such an error
 * into a failed exchange, which the test then sees. Surefire runs with {@code -XX:+AllowRedefinitionToAddDeleteMethods},
 * which BlockHound needs on Java 13+.
 */
public class BlockingCallCheckExtension implements BeforeAllCallback {

	private static volatile boolean installed;

	@Override
	public void beforeAll(ExtensionContext context) {
		install();
	}

	/** Installs BlockHound unless it is already installed; safe to call from any test. */
	public static synchronized void install() {
		if (!installed) {
			// install(...) loads the SPI integrations (Reactor's and Netty's thread markers); builder() alone would not.
			// UUID.randomUUID reads /dev/urandom, which never blocks once the kernel's pool is seeded (the demo's
			// session ids).
			// Netty 4.2's default allocator grows its shared pool of magazines under a StampedLock when event loops
			// contend for buffers (a burst of megabytes through three loops at once does it): a brief wait inside the
			// allocator, which Netty's own BlockHound integration does not list (it lists the magazines' thread-local
			// set-up only). Every other lock stays an error.
			BlockHound.install(builder -> builder.allowBlockingCallsInside("java.util.UUID", "randomUUID")
				.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
			installed = true;
		}
	}

}
