package dev.mcprelay.chain;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.mcprelay.api.Interceptor;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.text.LogText;
import reactor.core.Fuseable;
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

	public InterceptorChain(Stage<V> stage, List<? extends Interceptor> interceptors) {
		this(stage, interceptors, InterceptorObserver.NONE);
	}

	public InterceptorChain(Stage<V> stage, List<? extends Interceptor> interceptors, InterceptorObserver observer) {
		this.stage = stage;
		this.interceptors = List.copyOf(interceptors);
		this.observer = observer;
	}

	/** This chain without the interceptors that do not apply to {@code server}. */
	public InterceptorChain<V> forServer(String server) {
		List<Interceptor> applying = interceptors.stream().filter(interceptor -> interceptor.appliesTo(server)).toList();
		return applying.size() == interceptors.size() ? this : new InterceptorChain<>(stage, applying, observer);
	}

	/** The interceptors, in order. */
	public List<Interceptor> interceptors() {
		return interceptors;
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
		return interceptors.isEmpty() ? Verdict.PROCEED_MONO : Mono.defer(() -> runFrom(0, view, timeout, null));
	}

	/**
	 * Runs the interceptors from {@code index} on. An interceptor that decided at once (its {@code Mono} is a
	 * constant: {@code Outcome.proceed()}, {@code Mono.just}, {@code Mono.error}) is taken as it is, with no timer and
	 * no subscription; only one that decides later runs under the timeout. {@code changedBy} names the first
	 * interceptor so far that changed the message ({@link Verdict#changedBy}).
	 */
	private Mono<Verdict> runFrom(int index, V view, Duration timeout, String changedBy) {
		String firstChange = changedBy;
		for (int i = index; i < interceptors.size(); i++) {
			Interceptor interceptor = interceptors.get(i);
			boolean unchangedBefore = firstChange == null && !view.isChanged();
			long start = System.nanoTime();
			Mono<Outcome> decision;
			try {
				decision = stage.invoke(interceptor, view);
				if (decision == null) {
					throw new IllegalStateException("returned null instead of a Mono");
				}
			}
			catch (RuntimeException | Error error) {
				return Mono.just(observed(rejection(error, interceptor, view, timeout), interceptor, view, start));
			}
			if (!(decision instanceof Fuseable.ScalarCallable<?> decided)) {
				int next = i + 1;
				String changedSoFar = firstChange;
				return later(decision, interceptor, view, timeout, start).flatMap(verdict -> verdict.proceeds()
						? runFrom(next, view, timeout, firstChangeAfter(changedSoFar, unchangedBefore, interceptor, view))
						: Mono.just(verdict));
			}
			Verdict verdict;
			try {
				Object outcome = decided.call();
				verdict = outcome == null ? Verdict.PROCEED : verdict((Outcome) outcome, interceptor);
			}
			catch (Throwable error) {
				verdict = rejection(error, interceptor, view, timeout);
			}
			observed(verdict, interceptor, view, start);
			if (!verdict.proceeds()) {
				return Mono.just(verdict);
			}
			firstChange = firstChangeAfter(firstChange, unchangedBefore, interceptor, view);
		}
		return firstChange == null ? Verdict.PROCEED_MONO : Mono.just(Verdict.changedBy(firstChange));
	}

	/** The first interceptor that changed the message, once {@code interceptor} proceeded. */
	private static String firstChangeAfter(String firstChange, boolean unchangedBefore, Interceptor interceptor,
			MessageView view) {
		return unchangedBefore && view.isChanged() ? interceptor.name() : firstChange;
	}

	/** The verdict of an interceptor that decides later, within {@code timeout}. */
	private Mono<Verdict> later(Mono<Outcome> decision, Interceptor interceptor, V view, Duration timeout, long start) {
		return decision.timeout(timeout)
			.map(outcome -> verdict(outcome, interceptor))
			.defaultIfEmpty(Verdict.PROCEED)
			.onErrorResume(error -> Mono.just(rejection(error, interceptor, view, timeout)))
			.doOnNext(verdict -> observed(verdict, interceptor, view, start));
	}

	private Verdict observed(Verdict verdict, Interceptor interceptor, V view, long start) {
		observer.observe(stage.name(), interceptor.name(), view.server(), verdict.kind(),
				Duration.ofNanos(System.nanoTime() - start));
		return verdict;
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
					view.server(), reject.code(), LogText.quote(reject.getMessage()));
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
