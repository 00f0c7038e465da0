package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The response a member's relay writes for a virtual server: handed on as an answer when the relay commits it (status
 * and headers as they were then), its body flowing at the consumer's pace, the relay's write ending when the consumer
 * took it, and nothing handed on twice.
 */
class MemberResponseTest {

	private final AtomicReference<MemberAnswer> answered = new AtomicReference<>();

	private final java.util.concurrent.atomic.AtomicInteger stalls = new java.util.concurrent.atomic.AtomicInteger();

	private final MemberResponse response = new MemberResponse("github", answer -> {
		assertThat(answered.compareAndSet(null, answer)).as("an answer is handed on once").isTrue();
	}, stalls::incrementAndGet);

	@Test
	void aClosedConnectionTellsTheReaderItStalled() {
		response.closeConnection();

		assertThat(stalls.get()).as("the member's relay found the reader stalled: the reader closes its own client")
			.isEqualTo(1);
	}

	@Test
	void answerIsHandedOnWhenTheRelayCommitsWithStatusAndHeaders() {
		response.status(HttpStatus.ACCEPTED);
		response.headers().set("Mcp-Session-Id", "s-1").set("Content-Type", "text/event-stream");
		assertThat(response.committed()).as("nothing is committed before the write").isFalse();

		Mono<Void> written = response.write(Flux.just("a", "b")
			.map(text -> response.bufferFactory().wrap(text.getBytes(StandardCharsets.UTF_8))));
		StepVerifier.create(written).then(() -> {
			MemberAnswer answer = answered.get();
			assertThat(answer).as("the answer goes out as the write starts, before its body is taken").isNotNull();
			assertThat(response.committed()).isTrue();
			assertThat(answer.status()).isEqualTo(HttpStatus.ACCEPTED);
			assertThat(answer.headers().getFirst("mcp-session-id")).as("header names are case-insensitive")
				.isEqualTo("s-1");
			assertThat(answer.isEventStream()).isTrue();
			StepVerifier.create(answer.body().map(buffer -> {
				String text = buffer.toString(StandardCharsets.UTF_8);
				DataBufferUtils.release(buffer);
				return text;
			})).expectNext("a", "b").verifyComplete();
		}).expectComplete().verify(Duration.ofSeconds(5));
	}

	/**
	 * A buffer the member's relay discards is its own to release, and one the consumer received the consumer's: the
	 * consumer's discard hook (a window of its own, {@link AnswerRelay#writeEvents}) never reaches into the member's
	 * chain, where Reactor would chain it to the member's and release the buffer twice.
	 */
	@Test
	void aBufferTheMembersRelayDiscardsIsReleasedByItAloneNotAlsoByTheConsumer() {
		java.util.List<org.springframework.core.io.buffer.DataBuffer> byMember = new java.util.concurrent.CopyOnWriteArrayList<>();
		java.util.List<org.springframework.core.io.buffer.DataBuffer> byConsumer = new java.util.concurrent.CopyOnWriteArrayList<>();
		org.springframework.core.io.buffer.DataBuffer kept = response.bufferFactory().wrap(new byte[] { 1 });
		org.springframework.core.io.buffer.DataBuffer dropped = response.bufferFactory().wrap(new byte[] { 2 });

		response
			.write(Flux.just(kept, dropped)
				.filter(buffer -> buffer == kept)
				.doOnDiscard(org.springframework.core.io.buffer.DataBuffer.class, byMember::add))
			.subscribe();
		StepVerifier.create(answered.get().body().doOnDiscard(org.springframework.core.io.buffer.DataBuffer.class,
				byConsumer::add))
			.expectNext(kept)
			.verifyComplete();

		assertThat(byMember).as("the member's relay released what it discarded").containsExactly(dropped);
		assertThat(byConsumer).as("and the consumer did not release it again").isEmpty();
	}

	@Test
	void relayThatWritesNothingAnswersWithAnEmptyBodyOnce() {
		StepVerifier.create(response.complete()).verifyComplete();
		response.finish();

		MemberAnswer answer = answered.get();
		assertThat(answer.status()).as("the status defaults to 200").isEqualTo(HttpStatus.OK);
		StepVerifier.create(answer.body()).verifyComplete();
	}

}
