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
