package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.util.unit.DataSize;

import io.netty.buffer.PooledByteBufAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

class BoundedBodyTest {

	private final NettyDataBufferFactory buffers = new NettyDataBufferFactory(PooledByteBufAllocator.DEFAULT);

	private final List<DataBuffer> sent = new ArrayList<>();

	@Test
	void joinsEveryBufferInOrderAndReleasesThem() {
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("{\"a\""), buffer(":"), buffer("1}")), DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge))
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}"))
			.verifyComplete();
		assertThat(sent).allSatisfy(buffer -> assertThat(released(buffer)).isTrue());
	}

	@Test
	void aBodyOfManyBuffersUpToTheLimitIsWhole() {
		List<DataBuffer> parts = new ArrayList<>();
		StringBuilder expected = new StringBuilder();
		for (int i = 0; i < 100; i++) {
			String part = "part-" + i + ";";
			parts.add(buffer(part));
			expected.append(part);
		}
		StepVerifier.create(BoundedBody.read(Flux.fromIterable(parts), DataSize.ofBytes(expected.length()),
				BoundedBodyTest::tooLarge))
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(expected.toString()))
			.verifyComplete();
		assertThat(sent).allSatisfy(buffer -> assertThat(released(buffer)).isTrue());
	}

	@Test
	void noBodyIsEmpty() {
		StepVerifier.create(BoundedBody.read(Flux.empty(), DataSize.ofBytes(8), BoundedBodyTest::tooLarge))
			.assertNext(bytes -> assertThat(bytes).isEmpty())
			.verifyComplete();
	}

	@Test
	void failsAsSoonAsTheLimitIsPassedAndReadsNoFurther() {
		Sinks.Many<DataBuffer> body = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(BoundedBody.read(body.asFlux(), DataSize.ofBytes(5), BoundedBodyTest::tooLarge))
			.then(() -> body.tryEmitNext(buffer("1234")))
			.then(() -> body.tryEmitNext(buffer("56")))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(RelayFailure.class).hasMessageContaining("larger than"))
			.verify();
		assertThat(body.currentSubscriberCount()).as("the body was cancelled").isZero();
		assertThat(sent).allSatisfy(buffer -> assertThat(released(buffer)).isTrue());
	}

	@Test
	void aBodyThatFailsPartWayHoldsNothing() {
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("half")).concatWith(Flux.error(new IllegalStateException("cut"))),
				DataSize.ofBytes(64), BoundedBodyTest::tooLarge))
			.expectErrorMessage("cut")
			.verify();
		assertThat(sent).allSatisfy(buffer -> assertThat(released(buffer)).isTrue());
	}

	@Test
	void aBodyTakesFromTheBudgetOnlyTheBytesThatArrivedAndKeepsThemUntilTheExchangeEnds() {
		BufferedBodies budget = budget(20_000);
		BufferedBodies.Lease lease = budget.lease();
		Sinks.Many<DataBuffer> body = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(BoundedBody.read(body.asFlux(), DataSize.ofBytes(64_000), BoundedBodyTest::tooLarge)
			.contextWrite(lease::into))
			.then(() -> body.tryEmitNext(buffer("[")))
			.then(() -> assertThat(budget.held()).as("one byte arrived, whatever the body declares: the byte, and room "
					+ "to parse it").isEqualTo(2))
			.then(() -> body.tryEmitNext(buffer(" ")))
			.then(() -> assertThat(budget.held()).as("the next bytes go to a block of 8 KB, taken as it is made")
				.isEqualTo(2 + 8192 + 1))
			.then(() -> body.tryEmitNext(buffer(" ")))
			.then(() -> assertThat(budget.held()).as("a byte at a time fills the block: no array per byte")
				.isEqualTo(2 + 8192 + 2))
			.then(() -> body.tryEmitNext(buffer("]")))
			.then(body::tryEmitComplete)
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("[  ]"))
			.expectComplete()
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("the body read whole is held, joined, with room to parse it, while its exchange "
				+ "lasts").isEqualTo(8);

		lease.close();
		assertThat(budget.held()).as("the exchange ended: nothing held").isZero();
	}

	@Test
	void aBodyTheBudgetHasNoRoomForFailsAndReadsNoFurther() {
		BufferedBodies budget = budget(20);
		BufferedBodies.Lease first = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("12345678")), DataSize.ofBytes(64), BoundedBodyTest::tooLarge)
			.contextWrite(first::into))
			.expectNextCount(1)
			.expectComplete()
			.verify(java.time.Duration.ofSeconds(5));

		Sinks.Many<DataBuffer> body = Sinks.many().unicast().onBackpressureBuffer();
		BufferedBodies.Lease second = budget.lease();
		StepVerifier.create(BoundedBody.read(body.asFlux(), DataSize.ofBytes(64), BoundedBodyTest::tooLarge)
			.contextWrite(second::into))
			.then(() -> body.tryEmitNext(buffer("1234")))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(RelayFailure.class)
				.satisfies(failure -> assertThat(((RelayFailure) failure).reason()).isEqualTo("relay_overloaded"))
				.satisfies(failure -> assertThat(((RelayFailure) failure).status().value()).isEqualTo(503)))
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(body.currentSubscriberCount()).as("nothing more of a body the budget has no room for is read").isZero();
		assertThat(budget.held()).as("the failed read took nothing").isEqualTo(16);

		first.close();
		second.close();
		assertThat(budget.held()).as("every exchange ended: nothing held").isZero();
	}

	@Test
	void aReadThatFailsGivesBackWhatItTookAndALeaseClosedTakesNothing() {
		BufferedBodies budget = budget(20_000);
		BufferedBodies.Lease holder = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("x".repeat(6000))), DataSize.ofBytes(64_000),
				BoundedBodyTest::tooLarge).contextWrite(holder::into))
			.expectNextCount(1).expectComplete().verify(java.time.Duration.ofSeconds(5));

		BufferedBodies.Lease lease = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("12"), buffer("34")), DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge).contextWrite(lease::into))
			.as("the second buffer's block of 8 KB does not fit beside the 12,000 bytes held")
			.expectErrorSatisfies(error -> assertThat(((RelayFailure) error).reason()).isEqualTo("relay_overloaded"))
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("what the failed read took is back at once").isEqualTo(12_000);
		assertThat(sent).allSatisfy(buffer -> assertThat(released(buffer)).isTrue());

		holder.close();
		lease.close();
		StepVerifier.create(BoundedBody.read(Flux.just("12", "34", "56").map(this::buffer), DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge).contextWrite(lease::into))
			.as("a read in an exchange that ended takes nothing")
			.expectErrorSatisfies(error -> assertThat(((RelayFailure) error).reason()).isEqualTo("relay_overloaded"))
			.verify(java.time.Duration.ofSeconds(5));
		BufferedBodies.Lease fresh = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("12"), buffer("34"), buffer("56")), DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge).contextWrite(fresh::into))
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("123456"))
			.expectComplete().verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("a lease closed takes nothing more; the joined body is counted with room to parse "
				+ "it, and no more").isEqualTo(12);
		fresh.close();
		assertThat(budget.held()).isZero();
	}

	@Test
	void theBodyWhoseReadingBeganFirstIsReadPastTheBudgetAndTheOthersAreRefused() {
		BufferedBodies budget = budget(40_000);
		Sinks.Many<DataBuffer> first = Sinks.many().unicast().onBackpressureBuffer();
		Sinks.Many<DataBuffer> second = Sinks.many().unicast().onBackpressureBuffer();
		BufferedBodies.Lease firstLease = budget.lease();
		BufferedBodies.Lease secondLease = budget.lease();
		java.util.concurrent.atomic.AtomicReference<Object> secondOutcome = new java.util.concurrent.atomic.AtomicReference<>();
		BoundedBody.read(second.asFlux(), DataSize.ofBytes(64_000), BoundedBodyTest::tooLarge)
			.contextWrite(secondLease::into)
			.subscribe(secondOutcome::set, secondOutcome::set);

		StepVerifier.create(BoundedBody.read(first.asFlux(), DataSize.ofBytes(64_000), BoundedBodyTest::tooLarge)
			.contextWrite(firstLease::into))
			.then(() -> first.tryEmitNext(buffer("a".repeat(10_000))))
			.then(() -> second.tryEmitNext(buffer("b".repeat(9_000))))
			.then(() -> assertThat(budget.held()).isEqualTo(38_000))
			.then(() -> first.tryEmitNext(buffer("a".repeat(100))))
			.then(() -> assertThat(budget.held()).as("the first body's block and bytes, past the budget of 40,000")
				.isEqualTo(38_000 + 8192 + 100))
			.then(() -> second.tryEmitNext(buffer("b".repeat(100))))
			.then(() -> assertThat(secondOutcome.get()).as("a later body finds no room: refused")
				.isInstanceOfSatisfying(RelayFailure.class, failure -> assertThat(failure.reason()).isEqualTo("relay_overloaded")))
			.then(first::tryEmitComplete)
			.assertNext(bytes -> assertThat(bytes).hasSize(10_100))
			.expectComplete()
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("the first body, joined, with room to parse it").isEqualTo(20_200);
		firstLease.close();
		secondLease.close();
		assertThat(budget.held()).isZero();
	}

	@Test
	void anAnswerIsCountedOnceAndNeverRefused() {
		BufferedBodies budget = budget(10);
		BufferedBodies.Lease lease = budget.lease();
		StepVerifier.create(BoundedBody.readAnswer(Flux.just(buffer("12345678"), buffer("90abcdef")),
				DataSize.ofBytes(64), BoundedBodyTest::tooLarge).contextWrite(lease::into))
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("1234567890abcdef"))
			.expectComplete()
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("16 bytes held past a budget of 10: counted, not refused").isEqualTo(16);
		BufferedBodies.Lease next = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("{}")), DataSize.ofBytes(64), BoundedBodyTest::tooLarge)
			.contextWrite(next::into))
			.as("a new request waits while the answer is held")
			.expectErrorSatisfies(error -> assertThat(((RelayFailure) error).reason()).isEqualTo("relay_overloaded"))
			.verify(java.time.Duration.ofSeconds(5));
		lease.close();
		next.close();
		assertThat(budget.held()).isZero();
	}

	@Test
	void oneCallerHoldsAtMostItsShareAndLeavesTheRestToOthers() {
		BufferedBodies budget = new BufferedBodies(dev.mcprelay.testsupport.BoundProperties.of(java.util.Map.of(
				"max-buffered-bodies", "100B", "max-buffered-bodies-per-caller", "60B")),
				new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
		BufferedBodies.Lease first = budget.lease(() -> "API_KEY:greedy");
		BufferedBodies.Lease second = budget.lease(() -> "API_KEY:greedy");
		BufferedBodies.Lease other = budget.lease(() -> "API_KEY:other");
		BufferedBodies.Lease anonymous = budget.lease();

		assertThat(first.take(40)).isTrue();
		assertThat(second.take(30)).as("70 bytes would be more than one caller's 60").isFalse();
		assertThat(second.take(20)).isTrue();
		assertThat(budget.heldBy("API_KEY:greedy")).isEqualTo(60);
		assertThat(other.take(40)).as("another caller still has room").isTrue();
		assertThat(anonymous.take(1)).as("the budget itself is full").isFalse();
		assertThat(first.ceiling()).as("the most a request of a caller may hold: its share").isEqualTo(60);
		assertThat(anonymous.ceiling()).as("an anonymous caller shares the whole budget").isEqualTo(100);

		first.close();
		assertThat(budget.heldBy("API_KEY:greedy")).isEqualTo(20);
		second.close();
		other.close();
		assertThat(budget.heldBy("API_KEY:greedy")).isZero();
		assertThat(budget.held()).isZero();
	}

	private static BufferedBodies budget(long bytes) {
		return new BufferedBodies(dev.mcprelay.testsupport.BoundProperties.of(java.util.Map.of("max-buffered-bodies",
				bytes + "B")), new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
	}

	private DataBuffer buffer(String text) {
		DataBuffer buffer = buffers.allocateBuffer(16).write(text.getBytes(StandardCharsets.UTF_8));
		sent.add(buffer);
		return buffer;
	}

	private static boolean released(DataBuffer buffer) {
		return NettyDataBufferFactory.toByteBuf(buffer).refCnt() == 0;
	}

	private static RelayFailure tooLarge() {
		return RelayFailures.requestTooLarge("s", DataSize.ofBytes(5));
	}

}
