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
	void aDeclaredBodyTakesItsLengthFromTheBudgetBeforeAnythingIsReadAndKeepsItUntilTheExchangeEnds() {
		BufferedBodies budget = budget(10);
		BufferedBodies.Lease first = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("1234"), buffer("5678")), 8, DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge).contextWrite(first::into))
			.assertNext(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("12345678"))
			.expectComplete().verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("the body read whole is held while its exchange lasts").isEqualTo(8);

		Sinks.Many<DataBuffer> body = Sinks.many().unicast().onBackpressureBuffer();
		BufferedBodies.Lease second = budget.lease();
		StepVerifier.create(BoundedBody.read(body.asFlux(), 4, DataSize.ofBytes(64), BoundedBodyTest::tooLarge)
			.contextWrite(second::into))
			.expectErrorSatisfies(error -> assertThat(error).isInstanceOf(RelayFailure.class)
				.satisfies(failure -> assertThat(((RelayFailure) failure).reason()).isEqualTo("relay_overloaded"))
				.satisfies(failure -> assertThat(((RelayFailure) failure).status().value()).isEqualTo(503)))
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(body.currentSubscriberCount()).as("nothing of a body the budget has no room for is read").isZero();

		first.close();
		second.close();
		assertThat(budget.held()).as("every exchange ended: nothing held").isZero();
	}

	@Test
	void aBodyOfUnknownLengthTakesEachBufferAsItArrivesAndGivesItBackWhenItFails() {
		BufferedBodies budget = budget(10);
		BufferedBodies.Lease holder = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("123456")), DataSize.ofBytes(64), BoundedBodyTest::tooLarge)
			.contextWrite(holder::into)).expectNextCount(1).expectComplete().verify(java.time.Duration.ofSeconds(5));

		BufferedBodies.Lease lease = budget.lease();
		StepVerifier.create(BoundedBody.read(Flux.just(buffer("12"), buffer("34"), buffer("56")), DataSize.ofBytes(64),
				BoundedBodyTest::tooLarge).contextWrite(lease::into))
			.expectErrorSatisfies(error -> assertThat(((RelayFailure) error).reason()).isEqualTo("relay_overloaded"))
			.verify(java.time.Duration.ofSeconds(5));
		assertThat(budget.held()).as("what the failed read took is back at once").isEqualTo(6);
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
		assertThat(budget.held()).as("a lease closed takes nothing more; the joined body is counted once").isEqualTo(6);
		fresh.close();
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
