package dev.mcprelay.intercept;

import reactor.core.publisher.Mono;

/**
 * A policy applied to MCP messages at one stage of the relay. Do not implement this directly: implement the
 * interface of the stage you want (for example {@link ToolsCallRequestInterceptor}) and declare the class as a Spring
 * bean. Every bean of a stage joins that stage's chain, in {@code @Order} / {@code Ordered} order (lowest first);
 * the chain stops at the first interceptor that does anything but proceed.
 *
 * <p>{@link #intercept} may do non-blocking I/O (a policy service, a cache) and complete later; it must never block
 * the calling thread, which is usually an event loop. It runs under the server's {@code timeouts.non-streaming}
 * bound: an interceptor that takes longer fails as if it had thrown.
 *
 * @param <V> the view of the message this stage hands over
 */
public interface Interceptor<V> {

	/**
	 * A stable kebab-case name such as {@code tools-call-authz}, used in logs and metrics. Checked at start-up.
	 */
	String name();

	/**
	 * Decides about one message.
	 *
	 * @param message a view of the message; changes through its setters are relayed when the chain proceeds
	 * @return the {@link Outcome}; empty means proceed, an error means reject (see {@link RejectError})
	 */
	Mono<Outcome> intercept(V message);

}
