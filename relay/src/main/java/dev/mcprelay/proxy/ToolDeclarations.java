package dev.mcprelay.proxy;

import java.util.Map;
import java.util.Optional;

import dev.mcprelay.api.CallContext;
import reactor.core.publisher.Mono;

/**
 * What a server's tool declares for mirroring into {@code Mcp-Param-*} headers ({@link ParameterHeaders}), as the
 * server published the tool to the caller's view: read from what the relay keeps of the server's tool list, or by
 * listing it in the caller's request when the view has not seen the tool or what is kept is older than the server's
 * {@code tools.annotations-max-age}.
 */
@FunctionalInterface
public interface ToolDeclarations {

	/**
	 * The arguments {@code tool} of the server {@code context} addresses declares for mirroring ({@link
	 * ParameterHeaders#declaredBy}); empty when the server did not publish the tool to the caller's view. Fails with a
	 * {@link RelayFailure} when the server's tool list cannot be read (the request cannot be checked, and is refused).
	 */
	Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> of(CallContext context, String tool);

}
