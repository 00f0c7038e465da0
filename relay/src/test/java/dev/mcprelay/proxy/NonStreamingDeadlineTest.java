package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The non-streaming bound of one exchange, one operator: the first of the exchange's end, the limit, shutdown and the
 * caller's cancel decides, and each of the others is let go of (the exchange cancelled, shutdown no longer waited for).
 */
class NonStreamingDeadlineTest {

	private static final Duration LONG = Duration.ofHours(1);

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final NonStreamingDeadline deadline = new NonStreamingDeadline();

	private final Sinks.Empty<Void> exchange = Sinks.empty();

	private final Sinks.Empty<Void> shutdown = Sinks.empty();

	private final AtomicBoolean exchangeCancelled = new AtomicBoolean();

	private Mono<Void> bounded(Duration limit) {
		return deadline.bound(exchange.asMono().doOnCancel(() -> exchangeCancelled.set(true)), limit, shutdown.asMono());
	}

	@Test
	void anExchangeThatEndsFirstEndsAsItEndedAndShutdownIsNoLongerWaitedFor() {
		AtomicReference<String> ended = new AtomicReference<>();
		bounded(LONG).subscribe(null, error -> ended.set("error"), () -> ended.set("complete"));
		assertThat(shutdown.currentSubscriberCount()).isEqualTo(1);

		exchange.tryEmitEmpty();

		assertThat(ended).hasValue("complete");
		assertThat(shutdown.currentSubscriberCount()).isZero();
	}

	@Test
	void anExchangeThatFailsFailsWithItsOwnError() {
		Mono<Void> bounded = bounded(LONG);
		exchange.tryEmitError(new IllegalStateException("upstream gone"));

		assertThatThrownBy(() -> bounded.block(WAIT)).isInstanceOf(IllegalStateException.class).hasMessage("upstream gone");
		assertThat(shutdown.currentSubscriberCount()).isZero();
	}

	@Test
	void anExchangeWithNoAnswerWithinTheLimitIsCancelledAndFailsWithATimeout() {
		assertThatThrownBy(() -> bounded(Duration.ofMillis(50)).block(WAIT)).hasCauseInstanceOf(TimeoutException.class)
			.hasRootCauseMessage("no answer within PT0.05S");
		assertThat(exchangeCancelled).isTrue();
		assertThat(shutdown.currentSubscriberCount()).isZero();
	}

	@Test
	void shutdownCutsAnExchangeNotReleasedAndCancelsIt() {
		Mono<Void> bounded = bounded(LONG);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		bounded.subscribe(null, failure::set);

		shutdown.tryEmitEmpty();

		assertThat(failure.get()).isInstanceOf(RelayShuttingDownException.class);
		assertThat(exchangeCancelled).isTrue();
	}

	@Test
	void shutdownLeavesAReleasedExchangeToEndOnItsOwn() {
		AtomicReference<String> ended = new AtomicReference<>();
		bounded(LONG).subscribe(null, error -> ended.set("error " + error), () -> ended.set("complete"));
		deadline.release();

		shutdown.tryEmitEmpty();
		assertThat(ended).hasValue(null);
		assertThat(exchangeCancelled).isFalse();

		exchange.tryEmitEmpty();
		assertThat(ended).hasValue("complete");
	}

	@Test
	void anExchangeWhoseShutdownAlreadyCameIsNeverSubscribed() {
		shutdown.tryEmitEmpty();

		assertThatThrownBy(() -> bounded(LONG).block(WAIT)).isInstanceOf(RelayShuttingDownException.class);
		assertThat(exchange.currentSubscriberCount()).isZero();
	}

	@Test
	void theCallersCancelCancelsTheExchangeAndLetsGoOfShutdown() {
		Disposable subscribed = bounded(LONG).subscribe();
		assertThat(exchange.currentSubscriberCount()).isEqualTo(1);

		subscribed.dispose();

		assertThat(exchangeCancelled).isTrue();
		assertThat(shutdown.currentSubscriberCount()).isZero();
	}

	@Test
	void theExchangeAndShutdownAreSubscribedInTheCallersContext() {
		AtomicReference<Object> seenByShutdown = new AtomicReference<>();
		AtomicReference<Object> seenByExchange = new AtomicReference<>();
		Mono<Void> exchangeSeeing = Mono.deferContextual(context -> {
			seenByExchange.set(context.getOrDefault("key", null));
			return Mono.<Void>empty();
		});
		Mono<Void> shutdownSeeing = Mono.deferContextual(context -> {
			seenByShutdown.set(context.getOrDefault("key", null));
			return Mono.<Void>never();
		});

		deadline.bound(exchangeSeeing, LONG, shutdownSeeing).contextWrite(context -> context.put("key", "value"))
			.block(WAIT);

		assertThat(seenByShutdown).hasValue("value");
		assertThat(seenByExchange).hasValue("value");
	}

}
