package dev.mcprelay.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.proxy.OriginPolicy;
import dev.mcprelay.proxy.RelayFailure;
import reactor.core.publisher.Mono;

/**
 * The actuator paths ({@code management.endpoints.web.base-path}, {@code /actuator} unless configured, and every path
 * under it: {@code POST /actuator/reload} among them; on the relay's port and on a management port alike) refuse a
 * browser page as the MCP paths do ({@link OriginPolicy}): a request whose {@code Origin} is not allowed, or, while the
 * relay listens on loopback only, whose {@code Host} is not a loopback name, is answered 403 with a JSON-RPC error
 * before anything else (in mode {@code none} nothing else stands between a page on {@code https://evil.example} and a
 * reload). Requests without {@code Origin} (probes, scrapers, curl) pass as before. Runs before Spring Security; never
 * blocks.
 *
 * <p>Whether a request is for the actuator is decided on its path as the handler mappings match it, never on its raw
 * spelling ({@link #canonical}): each segment percent-decoded and without its {@code ;} parameters, empty and dot
 * segments dropped, compared without regard to case. Every spelling the actuator answers is so covered (and a few it
 * does not, which only lose the check's leniency).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class ActuatorOrigins implements WebFilter {

	private final OriginPolicy originPolicy;

	/** The base path's segments, as {@link #canonical} makes them; empty: every path is the actuator's. */
	private final List<String> base;

	ActuatorOrigins(OriginPolicy originPolicy,
			@Value("${management.endpoints.web.base-path:/actuator}") String basePath) {
		this.originPolicy = originPolicy;
		this.base = canonical(PathContainer.parsePath(basePath));
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (!isActuator(exchange.getRequest().getPath().pathWithinApplication())) {
			return chain.filter(exchange);
		}
		try {
			originPolicy.check(exchange.getRequest().getHeaders());
		}
		catch (RelayFailure refused) {
			var response = exchange.getResponse();
			response.setStatusCode(refused.status());
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			byte[] body = JsonRpcErrors.body(List.of(), false, refused.code(), refused.getMessage(), refused.data());
			return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
		}
		return chain.filter(exchange);
	}

	/** Whether {@code path}, as matched, is the base path or under it. */
	private boolean isActuator(PathContainer path) {
		List<String> segments = canonical(path);
		return segments.size() >= base.size() && segments.subList(0, base.size()).equals(base);
	}

	/**
	 * {@code path}'s segments as a handler mapping matches them ({@code PathSegment.valueToMatch()}: percent-decoded,
	 * {@code ;} parameters removed), split again at a decoded {@code /} or {@code \}, without empty segments (a
	 * doubled slash) or dot segments ({@code ..} removes the one before), in lower case.
	 */
	static List<String> canonical(PathContainer path) {
		List<String> segments = new ArrayList<>();
		for (PathContainer.Element element : path.elements()) {
			if (!(element instanceof PathContainer.PathSegment segment)) {
				continue;
			}
			for (String part : segment.valueToMatch().split("[/\\\\]")) {
				if (part.isEmpty() || part.equals(".")) {
					continue;
				}
				if (part.equals("..")) {
					if (!segments.isEmpty()) {
						segments.remove(segments.size() - 1);
					}
					continue;
				}
				segments.add(part.toLowerCase(Locale.ROOT));
			}
		}
		return segments;
	}

}
