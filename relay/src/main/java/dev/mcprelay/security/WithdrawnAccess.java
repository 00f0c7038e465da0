package dev.mcprelay.security;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

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
 * route what carries members is withdrawn too when the caller may no longer use one of the members it carries that is
 * still a member, by one rule ({@link #fromAny}): a request, the members it was admitted to ({@link #of}); a merged GET,
 * the members it reads at that reload, whichever admission opened them ({@code RelayExchange.accessWithdrawnFromAny}),
 * so that it ends and the client opens it again on the narrower set (a member removed from the virtual server is not
 * the caller's loss, and ends what it governs on its own). What goes through one member (a call streaming its answer
 * through it) ends only when the caller loses that member, or the whole access ({@link #fromAny} for that member:
 * {@code RelayExchange.accessWithdrawnFrom}): a call through a member the caller may still use runs on. A credential
 * whose check cannot be made (the authorization server's keys cannot be fetched) is judged as it was accepted, its
 * scopes on the new snapshot: the credential was accepted, and nothing says it is no longer, but what the configuration
 * took away it loses (review 44q Q-M1: a reload that narrowed a member's {@code allowed-scopes} while the keys could
 * not be fetched left that member's streams running). A token refused by the new settings only because it has expired since it was
 * accepted (the relay does not end a stream at its token's {@code exp}) is judged as it was accepted, its scopes on the
 * new snapshot (review 44p P-M3): expiry is no revocation, while a narrowing by the configuration still applies. A
 * credential the new snapshot's manager is the same as the request's accepted is not checked again.
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
	 * {@code caller}) to {@code route}, or, on a virtual server's route, no longer lets it use a member it was admitted
	 * to ({@link #fromAny} for the members {@code admittedOn} granted); never otherwise.
	 */
	Mono<Void> of(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn) {
		return fromAny(accepted, caller, route, admittedOn, () -> usable(accepted, caller, route, admittedOn));
	}

	/**
	 * Completes at the first snapshot made current after {@code admittedOn} that no longer admits {@code accepted} (who
	 * is {@code caller}) to the virtual server {@code route} names at all, or on which a member {@code members} names at
	 * that snapshot (asked then, after the credential is checked again), still a member, is not one the caller may use.
	 * What a request carries of a virtual server is judged against the members it carries now, whichever admission
	 * opened them (a merged GET reads a member given back, or joined late, after its own admission: that member counts
	 * as soon as it is read). Never for the loss of another member, nor for a member leaving the virtual server (not the
	 * caller's loss: what the member carried ends with its server, or with the virtual server's version).
	 */
	Mono<Void> fromAny(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			Supplier<? extends Collection<String>> members) {
		return firstLoss(accepted, caller, route, admittedOn, loss -> loss.takesAny(members.get()));
	}

	/**
	 * Completes at the first snapshot made current after {@code admittedOn} that lets {@code accepted} (who is still
	 * {@code caller}) use {@code member} of the virtual server {@code route} names, when {@code admittedOn} did not
	 * (the reverse of {@link #fromAny} for {@code member}: a member given back to the caller, or given anew); never otherwise, nor
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

	/**
	 * Whether {@code accepted} (who is {@code caller}) may use {@code member} of the virtual server {@code route} names,
	 * judged on the snapshot current now: {@code admittedOn} when no reload came since (the members it granted), else
	 * the newest, as {@link #nowFromAny} judges it (the credential checked again; a member no longer in the virtual
	 * server is not taken away). When the check cannot be made (the new key set cannot be fetched, or any other
	 * failure), what the credential was admitted with is the most it may use: a member {@code admittedOn} granted it that
	 * the newest snapshot grants the same credential too; never a member it was not admitted to (review 44p P-M1: the
	 * check that cannot be made grants nothing). The access of a merged GET to each member
	 * whose stream opens on its session, whoever's request opens it.
	 */
	Mono<Boolean> usableNow(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			String member) {
		if (route.virtualServer() == null) {
			return RelayExchange.USABLE;
		}
		CallerChecks acceptedBy = callers.of(admittedOn);
		ConfigurationSnapshot current = acceptedBy.reviews().latestAfter(admittedOn.generation());
		if (current == null) {
			return Mono.just(usable(accepted, caller, route, admittedOn).contains(member));
		}
		return loss(accepted, acceptedBy, caller, route, admittedOn, current)
			.map(loss -> loss.checked() ? !loss.takesAny(List.of(member))
					: usable(accepted, caller, route, admittedOn).contains(member)
							&& usable(accepted, caller, route, current).contains(member));
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
	 * server's route, a narrowing is each member's to answer: {@link #nowFromAny}). Asked once a request's body is read,
	 * and again when its turn comes, before anything of it is forwarded: a request admitted on its headers before a
	 * reload revoked its caller's access has done nothing yet, and is refused. {@code false} when no reload came since
	 * {@code admittedOn} ({@link RelayExchange#NOT_WITHDRAWN}, at the cost of one volatile read). When the check cannot
	 * be made, the credential is judged as it was accepted, on the snapshot current now.
	 */
	Mono<Boolean> now(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn) {
		return lossNow(accepted, caller, route, admittedOn, Loss::whole);
	}

	/**
	 * {@link #now} for what carries the members {@code members} names (asked once the snapshot current now is known):
	 * whether that snapshot takes away the whole access, or one of them, as {@link #fromAny} completes for.
	 */
	Mono<Boolean> nowFromAny(Authentication accepted, Caller caller, McpRoute route, ConfigurationSnapshot admittedOn,
			Supplier<? extends Collection<String>> members) {
		return lossNow(accepted, caller, route, admittedOn, loss -> loss.takesAny(members.get()));
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
			return now.id().equals(caller.id()) ? judged(again, now, route, next) : Loss.WHOLE;
		})
			.defaultIfEmpty(Loss.WHOLE)
			.onErrorResume(AccessRefusal.class, refused -> Mono.just(Loss.WHOLE))
			.onErrorResume(AuthenticationServiceException.class, unchecked -> {
				log.debug("A caller's access could not be checked against configuration {}: {}", next.generation(),
						unchecked.getMessage());
				return Mono.just(judged(accepted, caller, route, next).unchecked());
			})
			.onErrorResume(AuthenticationException.class, refused -> Mono.just(
					JwtDecoding.merelyExpired(refused) ? judged(accepted, caller, route, next) : Loss.WHOLE))
			.onErrorResume(failure -> {
				log.warn("A caller's access could not be checked against configuration {}; it is judged as it was "
						+ "accepted", next.generation(), failure);
				return Mono.just(judged(accepted, caller, route, next).unchecked());
			});
	}

	/**
	 * What {@code next} takes away of the access of {@code credential} (who is {@code caller}) on {@code route}: the
	 * whole when it refuses the route, else the members of the virtual server {@code credential} may not use there.
	 */
	private Loss judged(Authentication credential, Caller caller, McpRoute route, ConfigurationSnapshot next) {
		try {
			VirtualMembers usable = access.decide(credential, caller, route, next);
			return usable == null ? Loss.NONE : new Loss(false, unusable(route, usable, next), true);
		}
		catch (AccessRefusal refused) {
			return Loss.WHOLE;
		}
	}

	/**
	 * What one later snapshot takes away of a request's access: all of it ({@code whole}: the credential refused, now
	 * another caller's, or the route refused), or, on a virtual server's route, the members of the virtual server on
	 * that snapshot the caller may not use there ({@code unusable}), of which the request loses those it carries.
	 * {@code checked} is false when the credential could not be checked again ({@link #unchecked}): what is taken away
	 * is what the configuration takes from the credential as it was accepted, and nothing is known to be usable beyond
	 * what it was admitted with.
	 */
	private record Loss(boolean whole, List<String> unusable, boolean checked) {

		static final Loss WHOLE = new Loss(true, List.of(), true);

		static final Loss NONE = new Loss(false, List.of(), true);

		/** This loss, judged of a credential that could not be checked again (its accepted form judged instead). */
		Loss unchecked() {
			return new Loss(whole, unusable, false);
		}

		/** Whether it takes away what carries {@code members}: the whole access, or one of them. */
		boolean takesAny(Collection<String> members) {
			return whole || members.stream().anyMatch(unusable::contains);
		}

	}

	/**
	 * The members of {@code route}'s virtual server on {@code next} that are not among the members {@code usable} the
	 * caller may use on {@code next}.
	 */
	private List<String> unusable(McpRoute route, VirtualMembers usable, ConfigurationSnapshot next) {
		List<String> unusable = new ArrayList<>(access.membersOf(route.virtualServer(), next));
		unusable.removeAll(usable.members());
		return unusable;
	}

}
