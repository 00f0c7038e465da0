package dev.mcprelay.virtual;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.support.Netty4HeadersAdapter;

import dev.mcprelay.http.RelayResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response a member's relay writes for a virtual server, handed on as a {@link MemberAnswer} the moment the relay
 * commits it: the body flows to whoever consumes the answer, at that consumer's pace, and the relay's write ends
 * when the consumer has taken the body or cancelled it. A relay that completes without writing a body is handed on
 * as an answer with an empty body ({@link #finish()}). There is no connection: every buffer is flushed as it is taken;
 * where the member's relay would close the client's connection (a client that reads nothing for
 * {@code timeouts.client-write}), the reader of the answer is told instead.
 */
final class MemberResponse implements RelayResponse {

	/**
	 * The key under which Reactor keeps the discard hooks of a subscription in its context ({@code Flux#doOnDiscard},
	 * {@code reactor.core.publisher.Hooks.KEY_ON_DISCARD}, which Reactor does not make public).
	 */
	static final String DISCARD_HOOK = "reactor.onDiscard.local";

	private final String member;

	private final Consumer<MemberAnswer> onAnswer;

	private final AtomicBoolean answered = new AtomicBoolean();

	private final HttpHeaders headers = new DefaultHttpHeaders();

	private volatile HttpStatusCode status = HttpStatus.OK;

	private final List<Runnable> beforeCommit = new CopyOnWriteArrayList<>();

	private final Runnable onStalled;

	private final java.util.function.BooleanSupplier readerPresent;

	/**
	 * @param onStalled run when the member's relay closes "the connection" because whoever reads the answer took
	 * nothing of it for the member's {@code timeouts.client-write}: the reader decides what that means
	 */
	MemberResponse(String member, Consumer<MemberAnswer> onAnswer, Runnable onStalled) {
		this(member, onAnswer, onStalled, () -> true);
	}

	/** @param readerPresent whether whoever reads the answer is there now ({@link #readerPresent()}) */
	MemberResponse(String member, Consumer<MemberAnswer> onAnswer, Runnable onStalled,
			java.util.function.BooleanSupplier readerPresent) {
		this.member = member;
		this.onAnswer = onAnswer;
		this.onStalled = onStalled;
		this.readerPresent = readerPresent;
	}

	/** Whether whoever reads the answer is there (a merged stream's client GET is attached). */
	@Override
	public boolean readerPresent() {
		return readerPresent.getAsBoolean();
	}

	@Override
	public void status(HttpStatusCode status) {
		this.status = status;
	}

	@Override
	public HttpHeaders headers() {
		return headers;
	}

	@Override
	public DataBufferFactory bufferFactory() {
		return DefaultDataBufferFactory.sharedInstance;
	}

	/**
	 * Hands {@code body} on as the answer's. Who releases a buffer: the member's relay, for every buffer discarded in
	 * its own chain (its {@code ClientWriteWindow}'s one discard hook); the consumer, for every buffer it received.
	 * The consumer's discard hooks are therefore kept out of the member's chain: Reactor chains a subscriber's hooks
	 * to the ones upstream of it, so a consumer that writes through a window of its own ({@link AnswerRelay}) would
	 * release again what the member's window released (buffers released twice).
	 */
	@Override
	public Mono<Void> write(Publisher<? extends DataBuffer> body) {
		return Mono.create(written -> answer(Flux.<DataBuffer>from(body)
			.doFinally(signal -> written.success())
			.contextWrite(context -> context.delete(DISCARD_HOOK))));
	}

	@Override
	public Mono<Void> writeAndFlushEach(Publisher<? extends DataBuffer> body) {
		return write(body);
	}

	@Override
	public Mono<Void> complete() {
		return Mono.fromRunnable(this::finish);
	}

	@Override
	public void beforeCommit(Runnable action) {
		beforeCommit.add(action);
	}

	@Override
	public boolean committed() {
		return answered.get();
	}

	/** The member's relay found the reader of the answer stalled: the reader's own connection is its to close. */
	@Override
	public void closeConnection() {
		onStalled.run();
	}

	/** Hands on an answer with no body, unless the relay wrote one. */
	void finish() {
		answer(Flux.empty());
	}

	private void answer(Flux<DataBuffer> body) {
		if (answered.compareAndSet(false, true)) {
			beforeCommit.forEach(Runnable::run);
			org.springframework.http.HttpHeaders view = org.springframework.http.HttpHeaders
				.readOnlyHttpHeaders(new org.springframework.http.HttpHeaders(new Netty4HeadersAdapter(headers)));
			onAnswer.accept(new MemberAnswer(member, status, view, body, () -> null, () -> false, headers));
		}
	}

}
