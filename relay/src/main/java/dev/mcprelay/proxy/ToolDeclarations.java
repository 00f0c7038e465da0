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
public interface ToolDeclarations {

	/**
	 * The arguments {@code tool} of the server {@code context} addresses declares for mirroring ({@link
	 * ParameterHeaders#declaredBy}); empty when the server did not publish the tool to the caller's view. Fails with a
	 * {@link RelayFailure} when the server's tool list cannot be read (the request cannot be checked, and is refused).
	 */
	Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> of(CallContext context, String tool);

	/**
	 * {@link #of} for a call whose {@code Mcp-Param-*} headers the relay only writes (nothing the client sent is
	 * checked, nothing is refused): never fails, and waits for a listing at most a short share of the call's bound
	 * (a tenth, {@link #WRITE_WAIT_SHARE_DIVISOR}, of the server's {@code timeouts.non-streaming}); empty when the declarations are not
	 * known by then (the call goes on without those headers), while the listing goes on in the background and is kept
	 * for the next calls (review 43j N-2: such a call waited the whole own-work bound when the list hung).
	 */
	Mono<Optional<Map<String, ParameterHeaders.Mirrored>>> toWrite(CallContext context, String tool);

	/** The share of a server's {@code timeouts.non-streaming} a call waits for the declarations {@link #toWrite} reads. */
	int WRITE_WAIT_SHARE_DIVISOR = 10;

}
