package dev.mcprelay.web;

import java.util.concurrent.atomic.AtomicReference;

import org.reactivestreams.Publisher;
import org.springframework.boot.reactor.netty.NettyRouteProvider;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.NettyExchange;
import dev.mcprelay.http.RequestTarget;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.metrics.ExchangeObservations;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.proxy.BufferedBodies;
import dev.mcprelay.proxy.McpRelay;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.McpRouting;
import dev.mcprelay.security.FrontDoor;
import dev.mcprelay.virtual.VirtualRelay;
import io.netty.util.AttributeKey;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;

/**
 * The MCP paths on Reactor Netty directly, ahead of WebFlux (Spring Boot applies route providers before its handler):
 * every request whose routing decision ({@link McpRouting}, made here once on the raw path, on the configuration
 * snapshot the request takes here and carries to its end: {@link LiveConfiguration}) the relay observes goes to
 * the relay without WebFlux's exchange, and every other request (the actuator, RFC 9728 metadata, the demo upstream,
 * paths nothing serves) goes on to WebFlux, and in the secured modes through Spring Security's filter chain there.
 *
 * <p>On the route, in this order: the observation (an {@link ExchangeRecord} born with the decision; meters and the
 * access-log line when the response ends, completed, failed or cancelled by a client that went away), its id
 * ({@link RequestIds}) and the exchange's lease of the memory budget for bodies ({@link BufferedBodies}, given back as it ends), the refusal of
 * an ambiguous path ({@link AmbiguousPathRefusal}), CORS ({@link BrowserAccess}: a preflight is answered without
 * credentials), the front door ({@link FrontDoor}: in {@code api-key} and {@code jwt} mode, the caller and its access
 * to the server), then the relay ({@link McpRelay}, {@link VirtualRelay}); a failure before the response began is
 * answered as {@link JsonRpcErrorHandler} answers it.
 */
@Component
class McpRoutes implements NettyRouteProvider {

	/** The decision the route's predicate made, for its handler, which Reactor Netty calls right after on the request's channel. */
	private static final AttributeKey<Decision> DECISION = AttributeKey.valueOf(McpRoutes.class.getName());

	private final McpRouting routing;

	private final McpRelay relay;

	private final VirtualRelay virtualRelay;

	private final BrowserAccess browserAccess;

	private final FrontDoor frontDoor;

	private final ExchangeObservations observations;

	private final BufferedBodies bufferedBodies;

	private final LiveConfiguration live;

	McpRoutes(LiveConfiguration live, McpRouting routing, McpRelay relay, VirtualRelay virtualRelay, BrowserAccess browserAccess,
			FrontDoor frontDoor, ExchangeObservations observations, BufferedBodies bufferedBodies) {
		this.live = live;
		this.routing = routing;
		this.bufferedBodies = bufferedBodies;
		this.frontDoor = frontDoor;
		this.relay = relay;
		this.virtualRelay = virtualRelay;
		this.browserAccess = browserAccess;
		this.observations = observations;
	}

	@Override
	public HttpServerRoutes apply(HttpServerRoutes routes) {
		return routes.route(this::decide, this::handle);
	}

	/** Whether the request is the relay's: the one routing decision, made on the raw path and kept for the handler. */
	private boolean decide(HttpServerRequest request) {
		RequestTarget target = RequestTarget.of(request.uri());
		ConfigurationSnapshot configuration = live.current();
		McpRoute route = routing.resolve(configuration, target.rawPath());
		if (!route.isObserved()) {
			return false;
		}
		Decision decision = new Decision(target, route, configuration);
		request.withConnection(connection -> connection.channel().attr(DECISION).set(decision));
		return true;
	}

	private Publisher<Void> handle(HttpServerRequest request, HttpServerResponse response) {
		Decision decision = take(request);
		NettyExchange exchange = new NettyExchange(request, response, decision.target(), decision.route(),
				decision.configuration());
		RequestIds.assign(exchange);
		BufferedBodies.Lease bodies = bufferedBodies.lease(() -> callerKey(exchange.caller()));
		return Mono.defer(() -> serve(exchange))
			.onErrorResume(error -> JsonRpcErrorHandler.answer(exchange.method(), exchange.rawPath(), exchange.record(),
					exchange.response(), error))
			.doFinally(signal -> {
				bodies.close();
				observations.ended(exchange.record(), exchange.caller(), signal == SignalType.CANCEL);
			})
			.contextWrite(bodies::into);
	}

	private Mono<Void> serve(NettyExchange exchange) {
		McpRoute route = exchange.route();
		if (route.kind() == McpRoute.Kind.AMBIGUOUS_PATH) {
			return AmbiguousPathRefusal.refuse(route, exchange.record(), exchange.response());
		}
		return browserAccess.handle(exchange, () -> frontDoor.admit(exchange,
				() -> route.kind() == McpRoute.Kind.VIRTUAL ? virtualRelay.handle(exchange) : relay.handle(exchange)));
	}

	/** Whose share of the budget for bodies the request's take from: its caller's, once admitted; none when anonymous. */
	private static String callerKey(Caller caller) {
		return caller.id() == null ? null : caller.kind().name() + ":" + caller.id();
	}

	/** The decision {@link #decide} left on the request's channel, taken off it. */
	private static Decision take(HttpServerRequest request) {
		AtomicReference<Decision> taken = new AtomicReference<>();
		request.withConnection(connection -> taken.set(connection.channel().attr(DECISION).getAndSet(null)));
		return taken.get();
	}

	/** What the predicate decided about one request. */
	private record Decision(RequestTarget target, McpRoute route, ConfigurationSnapshot configuration) {
	}

}
