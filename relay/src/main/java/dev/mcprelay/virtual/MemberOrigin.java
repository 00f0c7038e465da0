package dev.mcprelay.virtual;

import java.util.function.Supplier;

import dev.mcprelay.api.Caller;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.http.ReloadEnding;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.route.VirtualMembers;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Mono;

/**
 * On whose behalf a virtual server sends a member a message: the client request's headers (those a member message
 * carries over, {@link MemberCalls}), its caller and the members that caller may use. A message that belongs to a
 * client request (a call, a list) takes the request's own; one that outlives it (a member's stream held from the join,
 * a member session ended when its virtual session expired) takes a copy, made while the request was there.
 *
 * @param headers the client request's headers
 * @param caller who sent the client request
 * @param access the members that caller may use
 * @param configuration the snapshot the client request runs on: a member's exchange runs on it too (kept with the
 * origin, a held member stream stays on the settings it began with)
 * @param ending when a reload ends the client request's messages to the member ({@link #endingOf}): the member's
 * exchange ends then, as one of a removed server's ({@code RelayExchange.endedByReload()}); never for a message that
 * outlives the request (what it belongs to, a held stream or a session, is ended by what keeps it)
 * @param withdrawnNow whether the client's access to the member is withdrawn now, asked before a message goes
 * ({@code RelayExchange.accessWithdrawnNowFrom}); {@link RelayExchange#NOT_WITHDRAWN} for a message that outlives the
 * request
 */
record MemberOrigin(HttpHeaders headers, Caller caller, VirtualMembers access,
		ConfigurationSnapshot configuration, Mono<ReloadEnding> ending, Supplier<Mono<Boolean>> withdrawnNow) {

	private static final Supplier<Mono<Boolean>> NEVER_WITHDRAWN = () -> RelayExchange.NOT_WITHDRAWN;

	/**
	 * The origin of {@code call}'s messages to {@code member} while its request lasts; {@code sessionEnded} says when
	 * a reload ends its session here ({@link VirtualSessionEnds#endedFor}).
	 */
	static MemberOrigin of(VirtualCall call, String member, Mono<String> sessionEnded) {
		RelayExchange client = call.exchange();
		return new MemberOrigin(client.requestHeaders(), client.caller(), access(call), client.configuration(),
				endingOf(call, member, sessionEnded), () -> client.accessWithdrawnNowFrom(member));
	}

	/** The origin of {@code call}'s messages, kept beyond its request: the headers copied. */
	static MemberOrigin kept(VirtualCall call) {
		HttpHeaders copy = new DefaultHttpHeaders();
		copy.set(call.exchange().requestHeaders());
		return new MemberOrigin(copy, call.exchange().caller(), access(call), call.exchange().configuration(),
				Mono.never(), NEVER_WITHDRAWN);
	}

	/**
	 * When a reload ends {@code call}'s exchanges with {@code member}, named for its virtual server: the reload ended
	 * its session here, {@code sessionEnded} ({@code server_removed}, {@code session_ended}: not a session that carries
	 * on in the version that replaced it, unless the store says another replica ended it meanwhile: the verdict its
	 * merged GET follows too, {@link VirtualSessionEnds#endedFor}), or the access to {@code member}
	 * the front door granted the client's caller was withdrawn ({@code access_withdrawn}: its access to the virtual
	 * server, or to that member; {@link dev.mcprelay.http.RelayExchange#accessWithdrawnFrom}), whichever comes first. A
	 * caller that loses another member of the virtual server keeps its exchanges with this one.
	 */
	static Mono<ReloadEnding> endingOf(VirtualCall call, String member, Mono<String> sessionEnded) {
		String virtualId = call.server().id();
		return Mono.firstWithValue(sessionEnded.map(reason -> new ReloadEnding(virtualId, reason)),
				call.exchange().accessWithdrawnFrom(member)
					.then(Mono.fromSupplier(() -> new ReloadEnding(virtualId, ReloadEnding.ACCESS_WITHDRAWN))));
	}

	/**
	 * The same origin on {@code snapshot}: what a held stream that outlived a reload sends anew (it joins a member
	 * that lost its session again) goes on the settings current now, not on those the stream began with.
	 */
	MemberOrigin on(ConfigurationSnapshot snapshot) {
		return new MemberOrigin(headers, caller, access, snapshot, ending, withdrawnNow);
	}

	/** The members the caller may use; never marked as a catalogue listing, which is one request's only. */
	private static VirtualMembers access(VirtualCall call) {
		VirtualMembers access = call.access();
		return access.catalogue() ? new VirtualMembers(access.virtualServer(), access.members()) : access;
	}

	@Override
	public String toString() {
		return "MemberOrigin[" + access.virtualServer() + "]";
	}

}
