package dev.mcprelay.api;

import reactor.core.publisher.Mono;

/**
 * Server-notification stage: sees each notification the upstream sends the client, on a POST stream, the GET stream
 * or in a JSON body, after the {@link RemoteMessageInterceptor}s let it through. The view is typed for MCP's common
 * notifications ({@link ProgressNotification}, {@link LoggingMessageNotification}, {@link ListChangedNotification},
 * {@link ResourceUpdatedNotification}: test with {@code instanceof}), else the plain {@link ServerNotification}.
 *
 * <p>Contract: inspect, change it through the view's setters, {@linkplain Outcome#drop drop} it, or reject it.
 *
 * <p>Wire form: a dropped notification never reaches the client, and nobody is told; a rejected one is replaced by
 * a {@code notifications/message} at level {@code error} naming the method and the reason.
 */
public interface ServerNotificationInterceptor extends Interceptor {

	/**
	 * Decides about one notification; see the stage's contract above.
	 *
	 * @return the {@link Outcome}; empty means proceed, an error means reject
	 */
	Mono<Outcome> interceptServerNotification(ServerNotification notification);

}
