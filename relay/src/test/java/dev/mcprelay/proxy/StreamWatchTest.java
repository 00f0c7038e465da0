package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Whose silence ends a stream, on virtual time: the upstream's while the relay has asked it for more, the client's
 * while the relay waits for the client to take what it holds. The client's clock measures what the client takes, not
 * how often the relay asks its upstream for more: the relay asks in bursts, and a client reading slowly but steadily
 * went 59 s without one and was cut at a 30 s client-write bound while it read 39 KB/s.
 */
class StreamWatchTest {

	private static final Duration UPSTREAM_IDLE = Duration.ofSeconds(60);

	private static final Duration CLIENT_WRITE = Duration.ofSeconds(30);

	private final VirtualTimeScheduler time = VirtualTimeScheduler.create();

	private final Sinks.Many<DataBuffer> upstream = Sinks.many().unicast().onBackpressureBuffer();

	private final StreamWatch watch = new StreamWatch(UPSTREAM_IDLE, CLIENT_WRITE, time);

	private final Relay relay = new Relay();

	@AfterEach
	void stop() {
		relay.dispose();
		time.dispose();
	}

	@Test
	void aClientThatTakesWhatItIsHandedSteadilyIsNeverCutHoweverLongTheRelayAsksNothingUpstream() {
		watch.watch(upstream.asFlux()).subscribe(relay);
		relay.request(1);
		upstream.tryEmitNext(chunk());
		// the relay holds all it may read ahead, and asks nothing more: the client is awaited

		for (int i = 0; i < 10; i++) {
			time.advanceTimeBy(CLIENT_WRITE.minusSeconds(5));
			watch.clientTook();
		}

		assertThat(relay.failure()).as("200 s without a request upstream, the client taking a piece every 25 s").isNull();
		time.advanceTimeBy(CLIENT_WRITE);
		assertThat(relay.failure()).as("then it took nothing for client-write")
			.isInstanceOf(StreamWatch.ClientStalledException.class);
	}

	@Test
	void whatTheClientTakesDoesNotHideASilentUpstream() {
		watch.watch(upstream.asFlux()).subscribe(relay);
		relay.request(1);

		time.advanceTimeBy(UPSTREAM_IDLE.minusSeconds(1));
		watch.clientTook();
		time.advanceTimeBy(Duration.ofSeconds(2));

		assertThat(relay.failure()).as("the relay asked, the upstream sent nothing for streaming-idle")
			.isInstanceOf(TimeoutException.class);
	}

	@Test
	void nothingIsTimedBeforeTheBodyIsWatchedOrAfterItEnded() {
		watch.clientTook();
		time.advanceTimeBy(CLIENT_WRITE.multipliedBy(2));
		watch.watch(upstream.asFlux()).subscribe(relay);
		relay.request(1);
		upstream.tryEmitNext(chunk());
		upstream.tryEmitComplete();
		watch.clientTook();
		time.advanceTimeBy(CLIENT_WRITE.multipliedBy(2));

		assertThat(relay.failure()).isNull();
		assertThat(relay.completed).isTrue();
	}

	private static DataBuffer chunk() {
		return DefaultDataBufferFactory.sharedInstance.wrap("data: {}\n\n".getBytes(StandardCharsets.UTF_8));
	}

	/** The relay's side of the watched body: asks only when told to. */
	private static final class Relay extends BaseSubscriber<DataBuffer> {

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		private volatile boolean completed;

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			// asks nothing until the test does
		}

		@Override
		protected void hookOnNext(DataBuffer chunk) {
		}

		@Override
		protected void hookOnError(Throwable error) {
			failure.set(error);
		}

		@Override
		protected void hookOnComplete() {
			completed = true;
		}

		Throwable failure() {
			return failure.get();
		}

	}

}
