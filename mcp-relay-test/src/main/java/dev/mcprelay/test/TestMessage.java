package dev.mcprelay.test;

import java.time.Duration;
import java.util.List;

import dev.mcprelay.api.Interceptor;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.chain.Verdict;

/**
 * One message at one stage, as {@link InterceptorTestKit} built it: its typed {@link #view()} (to inspect, or to hand
 * to an interceptor yourself), and {@link #run} to put it through interceptors as the relay does.
 *
 * @param <V> the view the stage's interceptors receive
 */
public final class TestMessage<V extends MessageView> {

	private final Stage<V> stage;

	private final V view;

	private final String received;

	private final String server;

	private final Duration timeout;

	TestMessage(Stage<V> stage, V view, String received, String server, Duration timeout) {
		this.stage = stage;
		this.view = view;
		this.received = received;
		this.server = server;
		this.timeout = timeout;
	}

	/** The typed view, live: what a setter of an interceptor changes shows here and in {@link TestResult#forwarded()}. */
	public V view() {
		return view;
	}

	/** The stage's name, as in the relay's logs and metrics ({@code tools-call-request}, ...). */
	public String stage() {
		return stage.name();
	}

	/**
	 * Runs {@code interceptors}, in this order, over the message, as the relay runs the stage's chain: only those that
	 * implement the stage's interface and {@linkplain Interceptor#appliesTo apply to} the kit's server take part; the
	 * first that does not proceed decides. (The relay orders its chain by {@code @Order}; here the order is the
	 * arguments'.) Blocks until the chain has decided, at most each interceptor's timeout.
	 *
	 * @throws IllegalArgumentException when interceptors are given and none implements the stage's interface: a
	 * test that meant another stage
	 *
	 * @return what the chain decided and the message as it would leave the stage
	 */
	public TestResult run(Interceptor... interceptors) {
		List<Interceptor> joining = List.of(interceptors)
			.stream()
			.filter(interceptor -> stage.interceptorType().isInstance(interceptor))
			.toList();
		if (interceptors.length > 0 && joining.isEmpty()) {
			throw new IllegalArgumentException("None of the interceptors given joins the " + stage.name() + " stage: it "
					+ "takes " + stage.interceptorType().getSimpleName() + "s");
		}
		Verdict verdict = new InterceptorChain<>(stage, joining).forServer(server).run(view, timeout).block();
		return new TestResult(verdict, view, received);
	}

}
