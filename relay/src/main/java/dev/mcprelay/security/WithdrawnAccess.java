package dev.mcprelay.security;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
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
 * governs on its own). What goes through one member (a call streaming its answer through it) ends only when the caller
 * loses that member, or the whole access ({@link #fromMember}: {@code RelayExchange.accessWithdrawnFrom}): a call
 * through a member the caller may still use runs on. A check that cannot be made (the authorization server's keys
 * cannot be fetched) withdraws nothing: the credential was accepted, and nothing says it is no longer. A credential
 * the new snapshot's manager is the same as the request's accepted is not checked again.
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
	 * {@code caller}) to {@code route}, or, on a virtual server's route, narrows the members it may use
	 * ({@link #narrowed}); never otherwise.
	 */
	Mono<Void> of(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn) {
		return firstLoss(accepted, caller, route, admittedOn, loss -> !loss.isEmpty());
	}

	/**
	 * Completes when a snapshot made current after {@code admittedOn} no longer lets {@code accepted} (who is
	 * {@code caller}) use {@code member} of the virtual server {@code route} names: it no longer admits the caller to
	 * the virtual server at all, or {@code member}, still a member, is no longer one the caller may use. Never for the
	 * loss of another member, nor for {@code member} leaving the virtual server (not the caller's loss: what the member
	 * carried ends with its server, or with the virtual server's version).
	 */
	Mono<Void> fromMember(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			String member) {
		return firstLoss(accepted, caller, route, admittedOn, loss -> loss.includes(member));
	}

	/**
	 * Completes at the first snapshot made current after {@code admittedOn} that lets {@code accepted} (who is still
	 * {@code caller}) use {@code member} of the virtual server {@code route} names, when {@code admittedOn} did not
	 * (the reverse of {@link #fromMember}: a member given back to the caller, or given anew); never otherwise, nor
	 * when the check cannot be made (nothing says the caller may use it).
	 */
	Mono<Void> grantedTo(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			String member) {
		if (route.virtualServer() == null || usable(accepted, caller, route, admittedOn).contains(member)) {
			return Mono.never();
		}
		CallerChecks acceptedBy = callers.of(admittedOn);
		return acceptedBy.reviews().after(admittedOn.generation())
			.concatMap(next -> callers.of(next).again(accepted, acceptedBy)
				.map(again -> ServerAccess.callerOf(again).id().equals(caller.id())
						&& usable(again, caller, route, next).contains(member))
				.onErrorReturn(false))
			.filter(granted -> granted)
			.next()
			.then();
	}

	/** The members of {@code route}'s virtual server {@code on} lets the caller use; none when it refuses the caller. */
	private List<String> usable(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot on) {
		try {
			VirtualMembers members = access.decide(accepted, caller, route, on);
			return members == null ? List.of() : members.members();
		}
		catch (AccessRefusal refused) {
			return List.of();
		}
	}

	/**
	 * Whether the snapshot current now, if a reload made it current after {@code admittedOn}, takes away the whole of
	 * the access {@code admittedOn} granted {@code accepted} (who is {@code caller}) on {@code route} (on a virtual
	 * server's route, a narrowing is each member's to answer: {@link #nowFrom}). Asked once a request's body is read,
	 * and again when its turn comes, before anything of it is forwarded: a request admitted on its headers before a
	 * reload revoked its caller's access has done nothing yet, and is refused. {@code false} when no reload came since
	 * {@code admittedOn} ({@link RelayExchange#NOT_WITHDRAWN}, at the cost of one volatile read), or when the check
	 * cannot be made (as {@link #of} withdraws nothing then).
	 */
	Mono<Boolean> now(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn) {
		return lossNow(accepted, caller, route, admittedOn, Loss::whole);
	}

	/**
	 * {@link #now} for what goes through {@code member} of the virtual server {@code route} names: whether the snapshot
	 * current now takes away the whole access, or {@code member}, as {@link #fromMember} completes for. A call to a
	 * member the caller may still use goes on when it loses another.
	 */
	Mono<Boolean> nowFrom(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			String member) {
		return lossNow(accepted, caller, route, admittedOn, loss -> loss.includes(member));
	}

	private Mono<Boolean> lossNow(Authentication accepted, Caller caller, McpRoute route,
			ConfigurationSnapshot admittedOn, Predicate<Loss> withdraws) {
		CallerChecks acceptedBy = callers.of(admittedOn);
		ConfigurationSnapshot current = acceptedBy.reviews().latestAfter(admittedOn.generation());
		if (current == null) {
			return RelayExchange.NOT_WITHDRAWN;
		}
		return loss(accepted, acceptedBy, caller, route, admittedOn, current).map(withdraws::test);
	}

	/** Completes at the first snapshot made current after {@code admittedOn} whose loss {@code withdraws} says so. */
	private Mono<Void> firstLoss(Authentication accepted, Caller caller, McpRoute route,
			ConfigurationSnapshot admittedOn, Predicate<Loss> withdraws) {
		CallerChecks acceptedBy = callers.of(admittedOn);
		return acceptedBy.reviews().after(admittedOn.generation())
			.concatMap(next -> loss(accepted, acceptedBy, caller, route, admittedOn, next))
			.filter(withdraws)
			.next()
			.then();
	}

	/** What {@code next} takes away of the access {@code admittedOn} granted. */
	private Mono<Loss> loss(Authentication accepted, CallerChecks acceptedBy, Caller caller, McpRoute route,
			ConfigurationSnapshot admittedOn, ConfigurationSnapshot next) {
		return callers.of(next).again(accepted, acceptedBy).map(again -> {
			Caller now = ServerAccess.callerOf(again);
			if (!now.id().equals(caller.id())) {
				return Loss.WHOLE;
			}
			VirtualMembers usable = access.decide(again, now, route, next);
			return usable == null ? Loss.NONE
					: new Loss(false, narrowed(accepted, caller, route, admittedOn, usable, next));
		})
			.defaultIfEmpty(Loss.WHOLE)
			.onErrorResume(AccessRefusal.class, refused -> Mono.just(Loss.WHOLE))
			.onErrorResume(AuthenticationServiceException.class, unchecked -> {
				log.debug("A caller's access could not be checked against configuration {}: {}", next.generation(),
						unchecked.getMessage());
				return Mono.just(Loss.NONE);
			})
			.onErrorResume(AuthenticationException.class, refused -> Mono.just(Loss.WHOLE))
			.onErrorResume(failure -> {
				log.warn("A caller's access could not be checked against configuration {}; its streams run on",
						next.generation(), failure);
				return Mono.just(Loss.NONE);
			});
	}

	/**
	 * What one later snapshot takes away of a request's access: all of it ({@code whole}: the credential refused, now
	 * another caller's, or the route refused), or the members of its virtual server the caller may no longer use, or
	 * nothing.
	 */
	private record Loss(boolean whole, List<String> members) {

		static final Loss WHOLE = new Loss(true, List.of());

		static final Loss NONE = new Loss(false, List.of());

		boolean isEmpty() {
			return !whole && members.isEmpty();
		}

		boolean includes(String member) {
			return whole || members.contains(member);
		}

	}

	/**
	 * The members of the virtual server the caller was admitted to on {@code admittedOn}, still members on
	 * {@code next}, that are not among the members {@code usable} the caller may use on {@code next}. The admitted
	 * members are decided again from {@code admittedOn} (the same decision the front door made; only when a reload
	 * came).
	 */
	private List<String> narrowed(Authentication accepted, Caller caller, McpRoute route,
			ConfigurationSnapshot admittedOn, VirtualMembers usable, ConfigurationSnapshot next) {
		VirtualMembers admitted;
		try {
			admitted = access.decide(accepted, caller, route, admittedOn);
		}
		catch (AccessRefusal refused) {
			return List.of();
		}
		List<String> stillMembers = access.membersOf(route.virtualServer(), next);
		List<String> lost = new ArrayList<>();
		for (String member : admitted.members()) {
			if (stillMembers.contains(member) && !usable.members().contains(member)) {
				lost.add(member);
			}
		}
		return lost;
	}

}
