package dev.mcprelay.session;

import reactor.core.publisher.Mono;

/**
 * A part of the relay whose state lives in the shared store (Redis): it is ready once its own connection is open and
 * answers. {@link RelayStoreHealth} holds the relay out of rotation until every such part is ready.
 */
public interface StoreReadiness {

	/** What this part is, for the health details (never an address or a credential). */
	String name();

	/** Completes when the part can use the store now; fails (bounded) when it cannot. */
	Mono<Void> ready();

}
