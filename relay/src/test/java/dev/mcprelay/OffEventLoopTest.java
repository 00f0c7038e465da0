package dev.mcprelay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Work given up on is left to finish: a task subscribed on {@link OffEventLoop#SCHEDULER} and then cancelled (a
 * timeout, a client gone) is never interrupted, so a connection being opened or a class being initialized there is
 * not broken for the rest of the process.
 */
class OffEventLoopTest {

	@Test
	void aCancelledTaskIsNeverInterrupted() throws InterruptedException {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch finished = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		Disposable subscription = Mono.fromCallable(() -> {
			running.countDown();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
			finished.countDown();
			return "done";
		}).subscribeOn(OffEventLoop.SCHEDULER).timeout(Duration.ofSeconds(30)).subscribe(done -> {
		}, error -> {
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

		subscription.dispose();
		release.countDown();

		assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(interrupted).as("the task ran to its end, not interrupted by the cancellation").isFalse();
	}

}
