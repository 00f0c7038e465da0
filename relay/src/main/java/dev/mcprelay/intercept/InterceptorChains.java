package dev.mcprelay.intercept;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Interceptor;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.InterceptorObserver;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.live.SnapshotCompilation;
import dev.mcprelay.live.SnapshotPart;

/**
 * Every stage's chain: the interceptor beans of the context, in {@code @Order} / {@code Ordered} order, found once at
 * start-up (start-up fails when an interceptor's {@code name()} is not kebab-case or is used by two interceptors of one
 * stage, since names identify interceptors in logs and metrics); and, per configuration snapshot (a
 * {@link SnapshotPart}), each configured server's chain of each stage: only the interceptors that govern that server
 * in that snapshot ({@link ConfiguredInterceptor#appliesTo(SnapshotCompilation, String, Stage)} for the relay's own,
 * {@link Interceptor#appliesTo(String)} for a plugin's). A server nothing governs has empty chains (its SSE
 * notifications take the fast path); a reload that adds a policy or a rule for it gives it the interceptor from its
 * next request. A chain whose interceptors a reload left as they were is the previous snapshot's object. Each request
 * uses the chains of the snapshot it took at its first byte; what the server sends of its own accord on its stream (a
 * notification, a request to the client) meets the chains of the snapshot current when it is sent
 * ({@link #chainAsSent}), so that a reload that governs a server governs what it says next on streams opened before.
 */
@Component
public class InterceptorChains implements SnapshotPart<InterceptorChains.Chains> {

	private static final Logger log = LoggerFactory.getLogger(InterceptorChains.class);

	private static final Pattern KEBAB_CASE = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

	/** Per stage: every interceptor bean of it, in order (the chain of a server no snapshot configures). */
	private final Map<Stage<?>, InterceptorChain<?>> chains = new HashMap<>();

	private final InterceptorObserver observer;

	private final ObjectProvider<LiveConfiguration> live;

	/** The live configuration, found on first use (it is compiled from this part, among others). */
	private volatile LiveConfiguration liveConfiguration;

	/** One snapshot's chains: per stage, per configured server. */
	public record Chains(Map<Stage<?>, Map<String, InterceptorChain<?>>> byServer) {
	}

	public InterceptorChains(ListableBeanFactory beans) {
		this.observer = beans.getBeanProvider(InterceptorObserver.class).getIfAvailable(() -> InterceptorObserver.NONE);
		this.live = beans.getBeanProvider(LiveConfiguration.class);
		List<String> problems = new ArrayList<>();
		for (Stage<?> stage : Stage.ALL) {
			InterceptorChain<?> chain = build(stage, beans, observer, problems);
			chains.put(stage, chain);
			if (!chain.isEmpty()) {
				log.info("Interceptors at the {} stage, in order: {}", stage, chain.names());
			}
		}
		if (!problems.isEmpty()) {
			throw new IllegalStateException("Invalid interceptor beans:\n  - " + String.join("\n  - ", problems));
		}
	}

	private static <V extends MessageView> InterceptorChain<V> build(Stage<V> stage, ListableBeanFactory beans,
			InterceptorObserver observer, List<String> problems) {
		List<? extends Interceptor> interceptors = beans.getBeanProvider(stage.interceptorType())
			.orderedStream()
			.toList();
		List<String> seen = new ArrayList<>();
		for (Interceptor interceptor : interceptors) {
			String name = interceptor.name();
			if (name == null || !KEBAB_CASE.matcher(name).matches()) {
				problems.add(interceptor.getClass().getName() + ".name() returned \"" + name
						+ "\": an interceptor name is kebab-case, such as \"tools-call-authz\"");
			}
			else if (seen.contains(name)) {
				problems.add("two interceptors of the " + stage + " stage are named \"" + name
						+ "\": give each a name of its own");
			}
			seen.add(name);
		}
		return new InterceptorChain<>(stage, interceptors, observer);
	}

	@Override
	public String partName() {
		return "interceptor chains";
	}

	/**
	 * Each configured server's chain of each stage in the snapshot being compiled, after the parts the relay's own
	 * interceptors read; a chain with the same interceptors as the previous snapshot's is that chain. The observer is
	 * told of each interceptor that runs for a server in a chain that is new ({@link InterceptorObserver#runsFor}).
	 */
	@Override
	public Chains compile(SnapshotCompilation compilation) {
		Chains previous = compilation.previous(this);
		Map<Stage<?>, Map<String, InterceptorChain<?>>> byServer = new HashMap<>();
		for (Stage<?> stage : Stage.ALL) {
			Map<String, InterceptorChain<?>> servers = new HashMap<>();
			Map<String, InterceptorChain<?>> before = previous == null ? Map.of() : previous.byServer().get(stage);
			for (String server : compilation.properties().servers().keySet()) {
				servers.put(server, forServer(stage, server, compilation, before.get(server)));
			}
			byServer.put(stage, Map.copyOf(servers));
		}
		return new Chains(Map.copyOf(byServer));
	}

	private <V extends MessageView> InterceptorChain<V> forServer(Stage<V> stage, String server,
			SnapshotCompilation compilation, InterceptorChain<?> before) {
		InterceptorChain<V> all = chain(stage);
		List<Interceptor> applying = all.interceptors()
			.stream()
			.filter(interceptor -> interceptor instanceof ConfiguredInterceptor configured
					? configured.appliesTo(compilation, server, stage) : interceptor.appliesTo(server))
			.toList();
		if (before != null && before.interceptors().equals(applying)) {
			@SuppressWarnings("unchecked")
			InterceptorChain<V> same = (InterceptorChain<V>) before;
			return same;
		}
		applying.forEach(interceptor -> observer.runsFor(stage.name(), interceptor.name(), server));
		return applying.size() == all.interceptors().size() ? all : new InterceptorChain<>(stage, applying, observer);
	}

	/**
	 * The chain of {@code stage} for {@code server} in {@code snapshot}: the interceptors that govern it there; every
	 * interceptor of the stage for a server the snapshot does not configure.
	 */
	@SuppressWarnings("unchecked")
	public <V extends MessageView> InterceptorChain<V> chain(Stage<V> stage, ConfigurationSnapshot snapshot,
			String server) {
		InterceptorChain<?> chain = server == null ? null : of(snapshot).byServer().get(stage).get(server);
		return chain != null ? (InterceptorChain<V>) chain : chain(stage);
	}

	/**
	 * The chain of {@code stage} for the server {@code context} addresses, in the snapshot its request runs on
	 * ({@link CallConfiguration}; the current one for a context the relay did not make).
	 */
	public <V extends MessageView> InterceptorChain<V> chain(Stage<V> stage, CallContext context) {
		ConfigurationSnapshot snapshot = CallConfiguration.of(context);
		return chain(stage, snapshot != null ? snapshot : current(), context.server());
	}

	/**
	 * The chain of {@code stage} for a message the server sends of its own accord now on the stream of
	 * {@code context}'s request (a notification, a request to the client, and the remote-message stage of either): the
	 * chain of the snapshot it is decided on ({@link #asSent}), not of the request's.
	 */
	public <V extends MessageView> InterceptorChain<V> chainAsSent(Stage<V> stage, CallContext context) {
		return chain(stage, asSent(context), context.server());
	}

	/** The snapshot what the server sends now on the stream of {@code context}'s request is decided on. */
	public ConfigurationSnapshot asSent(CallContext context) {
		return CallConfiguration.asSent(context, current());
	}

	private ConfigurationSnapshot current() {
		LiveConfiguration found = liveConfiguration;
		if (found == null) {
			found = live.getObject();
			liveConfiguration = found;
		}
		return found.current();
	}

	/** The chain of {@code stage} with every interceptor bean of it; empty when no bean joined it. */
	@SuppressWarnings("unchecked")
	public <V extends MessageView> InterceptorChain<V> chain(Stage<V> stage) {
		return (InterceptorChain<V>) chains.get(stage);
	}

}
