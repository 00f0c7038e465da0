package dev.mcprelay.testsupport;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Registered for every test class (auto-detected): when a test fails, prints the stacks of the threads a relay's
 * timers and I/O run on (Reactor's parallel and bounded-elastic workers, Reactor Netty's event loops, the test's own
 * thread) to standard error, which surefire keeps in the class's output file. A failure that leaves a shared thread
 * stuck (a parallel worker that never runs another timer fails every later test that draws it) is diagnosed from the
 * first failed test's output, not guessed from the later ones. At most {@value #MAX_DUMPS} dumps per JVM.
 */
public class ThreadsAtFailureExtension implements TestWatcher {

	private static final int MAX_DUMPS = 3;

	private static final AtomicInteger dumps = new AtomicInteger();

	@Override
	public void testFailed(ExtensionContext context, Throwable cause) {
		if (dumps.incrementAndGet() > MAX_DUMPS) {
			return;
		}
		StringBuilder dump = new StringBuilder("=== threads at the failure of ").append(context.getDisplayName())
			.append(" in ")
			.append(context.getRequiredTestClass().getName())
			.append('\n');
		Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(true, true))
			.filter(ThreadsAtFailureExtension::shared)
			.forEach(thread -> dump.append(stack(thread)));
		System.err.println(dump.append("=== end of threads"));
	}

	private static boolean shared(ThreadInfo thread) {
		String name = thread.getThreadName();
		return name.startsWith("parallel-") || name.startsWith("boundedElastic-") || name.startsWith("reactor-")
				|| name.startsWith("single-") || name.equals("main") || name.contains("nioEventLoop")
				|| name.contains("epoll");
	}

	/** The whole stack: ThreadInfo.toString stops at eight frames. */
	private static String stack(ThreadInfo thread) {
		StringBuilder text = new StringBuilder("\"").append(thread.getThreadName())
			.append("\" ")
			.append(thread.getThreadState());
		if (thread.getLockName() != null) {
			text.append(" on ").append(thread.getLockName());
		}
		if (thread.getLockOwnerName() != null) {
			text.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
		}
		text.append('\n');
		for (StackTraceElement frame : thread.getStackTrace()) {
			text.append("\tat ").append(frame).append('\n');
		}
		return text.append('\n').toString();
	}

}
