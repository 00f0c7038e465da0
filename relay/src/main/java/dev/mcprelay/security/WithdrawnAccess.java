package dev.mcprelay.security;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;

import dev.mcprelay.api.Caller;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import reactor.core.publisher.Mono;

/**
 * When a request the front door admitted loses its caller's access by a later reload: the signal its open streams end
 * on ({@code RelayExchange.accessWithdrawn()}, answered and counted by {@code OpenStreams} with reason
 * {@code access_withdrawn}). At each snapshot a reload makes current after the request's own ({@link AccessReviews}),
 * the caller's credential is checked again by that snapshot's manager ({@link CallerChecks#again}) and its access
 * decided again on the request's route ({@link ServerAccess#decide}); the access is withdrawn when the credential is
 * refused (a revoked API key, a token the new JWT settings do not accept), when it now authenticates another caller (a
 * key given to another client, a token named by another claim), or when that caller may no longer use the route's
 * server (a key's {@code servers}, the required scopes, a server's {@code allowed-scopes}). On a virtual server's
 * route it is withdrawn too when the caller may no longer use a member it was admitted to that is still a member
 * ({@link #narrowed}): the request's merged stream carries that member's messages, and ends so that the client opens
 * it again on the narrower set (a member removed from the virtual server is not the caller's loss, and ends what it
 * governs on its own). A check that cannot be made
 * (the authorization server's keys cannot be fetched) withdraws nothing: the credential was accepted, and nothing says
 * it is no longer. A credential the new snapshot's manager is the same as the request's accepted is not checked again.
 *
 * <p>Runs on whatever thread made the snapshot current, or the one a key fetch completes on; never blocks. A request
 * in mode {@code none} has no such signal.
 */
final class WithdrawnAccess {

	private static final Logger log = LoggerFactory.getLogger(WithdrawnAccess.class);

	private final CallerAuthentication callers;

	private final ServerAccess access;

	WithdrawnAccess(CallerAuthentication callers, ServerAccess access) {
		this.callers = callers;
		this.access = access;
	}

	/**
	 * Completes when a snapshot made current after {@code admittedOn} no longer admits {@code accepted} (who is
	 * {@code caller}) to {@code route}; never otherwise.
	 */
	Mono<Void> of(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn) {
		CallerChecks acceptedBy = callers.of(admittedOn);
		return acceptedBy.reviews().after(admittedOn.generation())
			.concatMap(next -> admits(accepted, acceptedBy, caller, route, admittedOn, next))
			.filter(admitted -> !admitted)
			.next()
			.then();
	}

	private Mono<Boolean> admits(Authentication accepted, CallerChecks acceptedBy, Caller caller, McpRoute route,
			ConfigurationSnapshot admittedOn, ConfigurationSnapshot next) {
		return callers.of(next).again(accepted, acceptedBy).map(again -> {
			Caller now = ServerAccess.callerOf(again);
			if (!now.id().equals(caller.id())) {
				return false;
			}
			VirtualMembers usable = access.decide(again, now, route, next);
			return usable == null || !narrowed(accepted, caller, route, admittedOn, usable, next);
		})
			.defaultIfEmpty(false)
			.onErrorResume(AccessRefusal.class, refused -> Mono.just(false))
			.onErrorResume(AuthenticationServiceException.class, unchecked -> {
				log.debug("A caller's access could not be checked against configuration {}: {}", next.generation(),
						unchecked.getMessage());
				return Mono.just(true);
			})
			.onErrorResume(AuthenticationException.class, refused -> Mono.just(false))
			.onErrorResume(failure -> {
				log.warn("A caller's access could not be checked against configuration {}; its streams run on",
						next.generation(), failure);
				return Mono.just(true);
			});
	}

	/**
	 * Whether a member of the virtual server the caller was admitted to on {@code admittedOn}, and that is still a member
	 * on {@code next}, is not among the members {@code usable} the caller may use on {@code next}. The admitted members
	 * are decided again from {@code admittedOn} (the same decision the front door made; only when a reload came).
	 */
	private boolean narrowed(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			VirtualMembers usable, ConfigurationSnapshot next) {
		VirtualMembers admitted;
		try {
			admitted = access.decide(accepted, caller, route, admittedOn);
		}
		catch (AccessRefusal refused) {
			return false;
		}
		List<String> stillMembers = access.membersOf(route.virtualServer(), next);
		for (String member : admitted.members()) {
			if (stillMembers.contains(member) && !usable.members().contains(member)) {
				return true;
			}
		}
		return false;
	}

}
