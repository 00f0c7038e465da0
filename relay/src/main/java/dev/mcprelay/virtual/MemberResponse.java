package dev.mcprelay.virtual;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response a member's relay writes for a virtual server, handed on as a {@link MemberAnswer} the moment the relay
 * commits it: the body flows to whoever consumes the answer, at that consumer's pace, and the relay's write ends
 * when the consumer has taken the body or cancelled it. A relay that completes without writing a body is handed on
 * as an answer with an empty body ({@link #finish()}).
 */
final class MemberResponse extends AbstractServerHttpResponse {

	private final String member;

	private final Consumer<MemberAnswer> onAnswer;

	private final AtomicBoolean answered = new AtomicBoolean();

	MemberResponse(String member, Consumer<MemberAnswer> onAnswer) {
		super(DefaultDataBufferFactory.sharedInstance, new HttpHeaders());
		this.member = member;
		this.onAnswer = onAnswer;
	}

	@Override
	protected Mono<Void> writeWithInternal(Publisher<? extends DataBuffer> body) {
		return Mono.create(written -> answer(Flux.<DataBuffer>from(body).doFinally(signal -> written.success())));
	}

	@Override
	protected Mono<Void> writeAndFlushWithInternal(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		return Mono.create(written -> answer(
				Flux.from(body).<DataBuffer>concatMap(Flux::from).doFinally(signal -> written.success())));
	}

	/** Hands on an answer with no body, unless the relay wrote one. */
	void finish() {
		answer(Flux.empty());
	}

	private void answer(Flux<DataBuffer> body) {
		if (answered.compareAndSet(false, true)) {
			HttpStatusCode status = getStatusCode() != null ? getStatusCode() : HttpStatus.OK;
			onAnswer.accept(new MemberAnswer(member, status, HttpHeaders.readOnlyHttpHeaders(getHeaders()), body));
		}
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T getNativeResponse() {
		return (T) this;
	}

	@Override
	protected void applyStatusCode() {
	}

	@Override
	protected void applyHeaders() {
	}

	@Override
	protected void applyCookies() {
	}

}
