package dev.mcprelay.intercept;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import reactor.core.publisher.Mono;

/**
 * The interceptors of one stage, in order, and the one loop that runs them, whatever the stage. The chain stops at
 * the first interceptor that does not proceed; an interceptor that throws, errors, returns an outcome its stage does
 * not allow, or does not answer in time is contained: logged with its name, and turned into a -32603 rejection
 * whose message says nothing of the cause.
 *
 * @param <V> the view the stage's interceptors receive
 */
public final class InterceptorChain<V extends MessageView> {

	private static final Logger log = LoggerFactory.getLogger(InterceptorChain.class);

	private final Stage<V> stage;

	private final List<Interceptor> interceptors;

	private final InterceptorObserver observer;

	InterceptorChain(Stage<V> stage, List<? extends Interceptor> interceptors) {
		this(stage, interceptors, InterceptorObserver.NONE);
	}

	InterceptorChain(Stage<V> stage, List<? extends Interceptor> interceptors, InterceptorObserver observer) {
		this.stage = stage;
		this.interceptors = List.copyOf(interceptors);
		this.observer = observer;
	}

	public boolean isEmpty() {
		return interceptors.isEmpty();
	}

	/** The names of the interceptors, in order. */
	public List<String> names() {
		return interceptors.stream().map(Interceptor::name).toList();
	}

	/**
	 * Runs the chain over {@code view}.
	 *
	 * @param timeout how long each interceptor may take
	 * @return the verdict; never an error
	 */
	public Mono<Verdict> run(V view, Duration timeout) {
		return interceptors.isEmpty() ? Verdict.PROCEED_MONO : runFrom(0, view, timeout);
	}

	private Mono<Verdict> runFrom(int index, V view, Duration timeout) {
		if (index == interceptors.size()) {
			return Verdict.PROCEED_MONO;
		}
		Interceptor interceptor = interceptors.get(index);
		return Mono.defer(() -> {
			long start = System.nanoTime();
			return Mono.defer(() -> stage.invoke(interceptor, view))
				.timeout(timeout)
				.map(outcome -> verdict(outcome, interceptor))
				.defaultIfEmpty(Verdict.PROCEED)
				.onErrorResume(error -> Mono.just(rejection(error, interceptor, view, timeout)))
				.doOnNext(verdict -> observer.observe(stage.name(), interceptor.name(), view.server(), verdict.kind(),
						Duration.ofNanos(System.nanoTime() - start)));
		}).flatMap(verdict -> verdict.proceeds() ? runFrom(index + 1, view, timeout) : Mono.just(verdict));
	}

	private Verdict verdict(Outcome outcome, Interceptor interceptor) {
		if (!stage.allows(outcome.kind())) {
			throw new IllegalStateException("returned " + outcome + ", which the " + stage + " stage does not allow");
		}
		return switch (outcome.kind()) {
			case PROCEED -> Verdict.PROCEED;
			case RESPOND -> new Verdict(Verdict.Kind.RESPOND, outcome.result(), null, interceptor.name(),
					outcome.notifications());
			case REPLACE_ERROR -> new Verdict(Verdict.Kind.REPLACE_ERROR, outcome.result(), null, interceptor.name());
			case DROP -> new Verdict(Verdict.Kind.DROP, null, null, interceptor.name());
		};
	}

	private Verdict rejection(Throwable error, Interceptor interceptor, V view, Duration timeout) {
		RejectError reject = RejectError.fromCause(error);
		if (reject == error) {
			log.debug("Interceptor '{}' ({} stage, server '{}') rejected a message: {} {}", interceptor.name(), stage,
					view.server(), reject.code(), reject.getMessage());
		}
		else if (error instanceof TimeoutException) {
			log.warn("Interceptor '{}' ({} stage, server '{}') did not answer within {}; the message is refused",
					interceptor.name(), stage, view.server(), timeout);
		}
		else {
			log.warn("Interceptor '{}' ({} stage, server '{}') failed; the message is refused", interceptor.name(),
					stage, view.server(), error);
		}
		return Verdict.rejected(reject, interceptor.name());
	}

}
