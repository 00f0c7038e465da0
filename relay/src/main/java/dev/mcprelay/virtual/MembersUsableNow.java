package dev.mcprelay.virtual;

import org.springframework.stereotype.Component;

import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import reactor.core.publisher.Mono;

/**
 * Whether a member of a virtual server may still serve a client request now, judged when the request is answered, not
 * when it was admitted: a reload since may have removed the member's server ({@link Upstream#isRemoved}, a server of a
 * virtual server with {@code members: ["*"]}) or withdrawn the member from the request's caller
 * ({@link RelayExchange#accessWithdrawnNowFrom}). A message to the member is refused by the member's own exchange
 * then; what the relay answers from what it keeps of the member (a list's page kept in {@link ListCache}, a tool search's
 * merged catalogue, {@link VirtualToolCatalogues}) asks the member nothing, so it asks here before it reads that, and
 * leaves the member out, as a member that cannot be reached is (a warning naming it).
 */
@Component
class MembersUsableNow {

	private final UpstreamRegistry upstreams;

	MembersUsableNow(UpstreamRegistry upstreams) {
		this.upstreams = upstreams;
	}

	/**
	 * Completes empty when {@code member} may still serve {@code call}; fails with {@link MemberUnavailable} when a
	 * reload removed its server or withdrew it from the caller. When nothing was reloaded since the request's admission
	 * it costs a volatile read and an identity check, and completes at once.
	 */
	Mono<Void> check(VirtualCall call, String member) {
		Upstream upstream = upstreams.in(call.exchange().configuration()).find(member);
		if (upstream != null && upstream.isRemoved()) {
			return Mono.error(new MemberUnavailable(member, "was removed from the relay's configuration"));
		}
		Mono<Boolean> withdrawn = call.exchange().accessWithdrawnNowFrom(member);
		if (withdrawn == RelayExchange.NOT_WITHDRAWN) {
			return Mono.empty();
		}
		return withdrawn.flatMap(lost -> lost ? Mono.error(new MemberUnavailable(member,
				"is no longer one this caller may use: a configuration reload withdrew it")) : Mono.<Void>empty());
	}

}
