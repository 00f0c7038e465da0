package dev.mcprelay.testsupport;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import dev.mcprelay.api.MessageView;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.chain.Stage;
import reactor.core.publisher.Mono;

/**
 * What the {@link ScriptedInterceptor}s do, set by each test: for an interceptor and a stage, a behaviour; by default
 * they proceed. Every call is recorded, with the message's method and id as the interceptor saw them.
 */
public final class InterceptorScript {

	/** One call of an interceptor at a stage. */
	public record Call(String interceptor, String stage, String method, String id) {
	}

	private final List<Call> calls = new CopyOnWriteArrayList<>();

	private final Map<String, Function<MessageView, Mono<Outcome>>> behaviours = new ConcurrentHashMap<>();

	/** From now on, {@code interceptor} does {@code behaviour} at {@code stage}. */
	@SuppressWarnings("unchecked")
	public <V extends MessageView> void on(String interceptor, Stage<V> stage, Function<V, Mono<Outcome>> behaviour) {
		behaviours.put(key(interceptor, stage), view -> behaviour.apply((V) view));
	}

	Mono<Outcome> run(String interceptor, Stage<?> stage, MessageView view) {
		calls.add(new Call(interceptor, stage.name(), view.method(), view.id() == null ? null : view.id().asText()));
		Function<MessageView, Mono<Outcome>> behaviour = behaviours.get(key(interceptor, stage));
		return behaviour == null ? Outcome.proceed() : behaviour.apply(view);
	}

	public List<Call> calls() {
		return List.copyOf(calls);
	}

	/** The stages {@code interceptor} saw, as "stage method" strings, in order. */
	public List<String> seenBy(String interceptor) {
		return calls.stream()
			.filter(call -> call.interceptor().equals(interceptor))
			.map(call -> call.stage() + " " + call.method())
			.toList();
	}

	public void reset() {
		calls.clear();
		behaviours.clear();
	}

	private static String key(String interceptor, Stage<?> stage) {
		return interceptor + "@" + stage.name();
	}

}
