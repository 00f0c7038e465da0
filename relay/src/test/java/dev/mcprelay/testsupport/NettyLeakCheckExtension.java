package dev.mcprelay.testsupport;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;

/**
 * Registered for every test class (auto-detected): after the class, forces garbage collection, makes Netty look for
 * buffers collected without being released, and fails the class if any leak was reported. Surefire runs with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 */
public class NettyLeakCheckExtension implements AfterAllCallback {

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID) {
			throw new AssertionError("Tests must run with -Dio.netty.leakDetection.level=paranoid");
		}
		for (int round = 0; round < 3; round++) {
			System.gc();
			Thread.sleep(50);
			for (int i = 0; i < 64; i++) {
				// Each tracked allocation makes the detector poll for collected, unreleased buffers.
				ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(8);
				probe.release();
			}
		}
		List<String> leaks = NettyLeakReports.drain();
		if (!leaks.isEmpty()) {
			throw new AssertionError(context.getDisplayName() + " leaked or over-released " + leaks.size()
					+ " Netty buffer(s). First report:\n" + leaks.get(0));
		}
	}

}
