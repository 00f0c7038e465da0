package dev.mcprelay.intercept;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Interceptor;
import dev.mcprelay.api.MessageView;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.InterceptorObserver;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.config.RelayProperties;

/**
 * Every stage's chain, built once at start-up from the interceptor beans of the context, in {@code @Order} /
 * {@code Ordered} order. Start-up fails when an interceptor's {@code name()} is not kebab-case or is used by two
 * interceptors of one stage, since names identify interceptors in logs and metrics.
 */
@Component
public class InterceptorChains {

	private static final Logger log = LoggerFactory.getLogger(InterceptorChains.class);

	private static final Pattern KEBAB_CASE = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

	private final Map<Stage<?>, InterceptorChain<?>> chains = new HashMap<>();

	/** Per stage, per configured server: the chain without the interceptors that do not apply to that server. */
	private final Map<Stage<?>, Map<String, InterceptorChain<?>>> byServer = new HashMap<>();

	public InterceptorChains(ListableBeanFactory beans) {
		InterceptorObserver observer = beans.getBeanProvider(InterceptorObserver.class)
			.getIfAvailable(() -> InterceptorObserver.NONE);
		List<String> problems = new ArrayList<>();
		for (Stage<?> stage : Stage.ALL) {
			InterceptorChain<?> chain = build(stage, beans, observer, problems);
			chains.put(stage, chain);
			if (!chain.isEmpty()) {
				log.info("Interceptors at the {} stage, in order: {}", stage, chain.names());
			}
			Map<String, InterceptorChain<?>> servers = new HashMap<>();
			for (String server : serverIds(beans)) {
				InterceptorChain<?> forServer = chain.forServer(server);
				servers.put(server, forServer);
				forServer.names().forEach(name -> observer.runsFor(stage.name(), name, server));
			}
			byServer.put(stage, servers);
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

	/**
	 * The chain of {@code stage} for the configured server {@code server}: the interceptors that apply to it
	 * ({@link Interceptor#appliesTo}); the whole chain for a server that is not configured.
	 */
	@SuppressWarnings("unchecked")
	public <V extends MessageView> InterceptorChain<V> chain(Stage<V> stage, String server) {
		InterceptorChain<?> chain = server == null ? null : byServer.get(stage).get(server);
		return (InterceptorChain<V>) (chain != null ? chain : chains.get(stage));
	}

	private static Set<String> serverIds(ListableBeanFactory beans) {
		RelayProperties properties = beans.getBeanProvider(RelayProperties.class).getIfAvailable();
		return properties == null ? Set.of() : properties.servers().keySet();
	}

	/** The chain of {@code stage}; empty when no bean joined it. */
	@SuppressWarnings("unchecked")
	public <V extends MessageView> InterceptorChain<V> chain(Stage<V> stage) {
		return (InterceptorChain<V>) chains.get(stage);
	}

}
