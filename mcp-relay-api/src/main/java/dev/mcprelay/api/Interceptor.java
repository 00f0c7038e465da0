package dev.mcprelay.api;

/**
 * A policy applied to MCP messages as they pass the relay. Do not implement this alone: implement the interface of
 * each stage you want (for example {@link ToolsCallRequestInterceptor} and {@link ToolsListResponseInterceptor}; one
 * class may implement several) and declare the class as a Spring bean. A bean joins the chain of every stage it
 * implements, in {@code @Order} / {@code Ordered} order (lowest first); a chain stops at the first interceptor that
 * does anything but proceed.
 *
 * <p>Every stage method returns a {@code Mono<Outcome>}, so it may do non-blocking I/O (a policy service, a cache)
 * and complete later; it must never block the calling thread, which is usually an event loop. Each call runs under
 * the server's {@code timeouts.non-streaming} bound: an interceptor that takes longer fails as if it had thrown. An
 * empty {@code Mono} means {@link Outcome#proceed()}; an error means a rejection (see {@link RejectError}).
 */
public interface Interceptor {

	/**
	 * A stable kebab-case name such as {@code tools-call-authz}, used in logs and metrics. Checked at start-up.
	 */
	String name();

	/**
	 * Whether this interceptor has anything to do for the configured server {@code server}; asked once per server for
	 * each configuration the relay runs (at start-up, and at each reload for the servers it then has), never on an
	 * event loop. A server's chains leave out the interceptors that answer false, so a policy that is off for a server
	 * costs that server nothing. The default: every server.
	 */
	default boolean appliesTo(String server) {
		return true;
	}

}
