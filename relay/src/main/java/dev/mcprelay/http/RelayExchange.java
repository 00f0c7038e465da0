package dev.mcprelay.http;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpMethod;

import dev.mcprelay.api.Caller;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import io.netty.handler.codec.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One client request on an MCP path, as the relay ({@code McpRelay}, {@code VirtualRelay}) handles it: the request as
 * received, the decisions made about it before the relay (its route, its caller, a virtual server's usable members, the
 * record its meters and access-log line are made of), and its {@link #response()}. The relay sees nothing else of the
 * server that carries it: one adapter per server (Reactor Netty's route, a virtual server's member exchange in-process).
 *
 * <p>When it runs: the relay gets the exchange once the request line and headers arrived and the front door (origin
 * checks aside, which the relay makes) decided about it; the body may still be arriving. What the relay may change:
 * the request's headers, in place ({@link #requestHeaders()}, for a decision every later reader must see the same way:
 * a session's own id in place of the bound one), a virtual server's members when the front door decided none (security
 * mode {@code none}), the record, and the response.
 *
 * <p>Cancellation: the relay's handling of the exchange is a {@code Mono<Void>}; the adapter cancels it when the client
 * goes away (reset, closed or half-closed connection), and everything the relay started for the request (the upstream
 * exchange, a member's exchange, a stream) is cancelled with it. A failure of that {@code Mono} after the response
 * committed aborts the connection; the relay answers every failure it can before that itself.
 */
public interface RelayExchange {

	/** The request's method as received. */
	HttpMethod method();

	/** The request target's path as received: percent-encoded, without the query. */
	String rawPath();

	/** The request target's query as received, without {@code ?}; {@code null} when there is none. */
	String rawQuery();

	/**
	 * The request's headers as the server read them, Netty's own type, not a copy: read by the header rules, and
	 * changed in place only for what every later reader must see the same way.
	 */
	HttpHeaders requestHeaders();

	/** {@link #requestHeaders()} seen as Spring's headers (to parse media types, lengths), a view, not a copy. */
	org.springframework.http.HttpHeaders requestHeaderView();

	/**
	 * The request's body, once, as it arrives. Each buffer belongs to the subscriber, which releases it; the adapter
	 * releases what it holds when the subscriber cancels.
	 */
	Flux<DataBuffer> requestBody();

	/**
	 * The POST body already parsed by whoever made this exchange in this process, or {@code null} (the rule): the relay
	 * then reads {@link #requestBody()} within the server's {@code max-buffered-body} and parses it itself. An exchange
	 * made from a message its maker parsed and validated as the relay parses a client's body (a virtual server's
	 * message to a member: the client's request it routed) hands that message on, so that the relay need not parse
	 * its bytes again: the payload's {@link JsonRpcPayload#raw() raw} bytes are {@link #requestBody()}'s, its tree is
	 * the relay's from then on (interceptors' setters change it in place), and the relay still refuses it when its
	 * bytes pass the server's {@code max-buffered-body}.
	 */
	default JsonRpcPayload parsedBody() {
		return null;
	}

	/**
	 * Whether the server already answered the request itself: Reactor Netty does, with 400, when a request turns out
	 * malformed on the wire while its body arrives (a bad chunk size, extension or trailer), and then ends the body as
	 * if it were complete, so what was read must never be forwarded.
	 */
	boolean answeredByServer();

	/** The response the relay writes. */
	RelayResponse response();

	/** The request's one routing decision, made on its raw path before anything else read it. */
	McpRoute route();

	/**
	 * The configuration the request runs on from its first byte to its end, taken with its routing decision: every
	 * setting the relay reads for it comes from here, however many reloads happen while it runs.
	 */
	ConfigurationSnapshot configuration();

	/** Who sent the request, as the front door established; {@link Caller#ANONYMOUS} when it established none. */
	Caller caller();

	/** The members of a virtual server this caller may use, as the front door decided; {@code null} when it did not. */
	VirtualMembers virtualMembers();

	/** Records the members of a virtual server this caller may use, where the front door asks nobody. */
	void virtualMembers(VirtualMembers members);

	/** What the request did, filled in as it goes, for its meters and its access-log line. */
	ExchangeRecord record();

	/**
	 * Completes when a configuration reload withdrew the caller's access that the front door granted this request (its
	 * API key revoked or no longer opening the server, its token no longer accepted by the JWT settings): the request's
	 * open streams end then, with reason {@code access_withdrawn}. Never completes by default (mode {@code none}, an
	 * exchange the front door did not admit).
	 */
	default Mono<Void> accessWithdrawn() {
		return Mono.never();
	}

	/**
	 * Completes when a configuration reload withdrew the caller's access to {@code member}, a member of the virtual
	 * server this request came through: its access to the virtual server withdrawn whole ({@link #accessWithdrawn()}),
	 * or {@code member}, still a member, no longer one it may use (its API key's {@code servers} no longer name it, its
	 * token no longer meets its {@code allowed-scopes}). What the request sends through {@code member} ends then; what
	 * it sends through members it may still use runs on, though {@link #accessWithdrawn()} completes for the narrowing
	 * (its merged stream carries every member). Never completes by default.
	 */
	default Mono<Void> accessWithdrawnFrom(String member) {
		return accessWithdrawnFromAny(() -> List.of(member));
	}

	/**
	 * Completes when a configuration reload withdrew the caller's access to the virtual server this request came
	 * through, or to one of its members that {@code members} names when that reload is judged (asked then, each time):
	 * what carries those members (a merged GET, which reads the members its session reads now, some opened after its
	 * admission) ends then. {@link #accessWithdrawnFrom} is this for one member. Never completes by default.
	 */
	default Mono<Void> accessWithdrawnFromAny(Supplier<? extends Collection<String>> members) {
		return Mono.never();
	}

	/**
	 * Completes when a configuration reload made current after this request's admission lets its caller use
	 * {@code member} of the virtual server the request came through, a member its admission did not grant it (given
	 * back after a reload narrowed the caller's access, or given anew): what the request carries of the virtual server
	 * may carry that member from then on (a merged GET opens its stream). Never completes by default (mode
	 * {@code none}, whose callers may use every member, an exchange the front door did not admit).
	 */
	default Mono<Void> accessGrantedTo(String member) {
		return Mono.never();
	}

	/**
	 * Whether this request's caller may use {@code member} of the virtual server the request came through, judged on
	 * the configuration current now by the credential the front door accepted: on the request's own admission when no
	 * reload came since (a member it did not grant is not usable), else on the newest snapshot (a member given back is,
	 * one withdrawn is not; a credential whose check cannot be made is judged as it was accepted, and is given nothing back). What a merged GET reads is judged by this,
	 * whichever request opens a member's stream on its session ({@code virtual.MergedGetAccess}). {@code true} by
	 * default (mode {@code none}, whose callers may use every member; an exchange the front door did not admit).
	 */
	default Mono<Boolean> accessUsableNow(String member) {
		return USABLE;
	}

	/** {@link #accessUsableNow}'s answer when nothing is judged: one instance. */
	Mono<Boolean> USABLE = Mono.just(true);

	/**
	 * Whether the configuration current now withdrew the caller's access the front door granted this request on its
	 * headers to what it goes to: asked once a POST's body is read and again when its turn comes, before anything of
	 * it is forwarded ({@code proxy.AccessCheckedBeforeForwarding}). For a virtual server's request, its access to the
	 * virtual server as a whole: a member it may no longer use is its member exchange's to refuse
	 * ({@link #accessWithdrawnNowFrom}), so that a call to a member it may still use goes on. A member's exchange
	 * answers for the client's access to that member. {@code false} by default (mode {@code none}, an exchange the front
	 * door did not admit, a member's exchange that outlives its client request).
	 */
	default Mono<Boolean> accessWithdrawnNow() {
		return NOT_WITHDRAWN;
	}

	/**
	 * Whether the configuration current now withdrew the caller's access to {@code member} of the virtual server this
	 * request came through (what would complete {@link #accessWithdrawnFrom}): its whole access, or {@code member},
	 * still a member, no longer one it may use. {@code false} by default.
	 */
	default Mono<Boolean> accessWithdrawnNowFrom(String member) {
		return accessWithdrawnNowFromAny(() -> List.of(member));
	}

	/**
	 * Whether the configuration current now withdrew the caller's access to the virtual server this request came
	 * through, or to one of the members {@code members} names (what would complete {@link #accessWithdrawnFromAny}).
	 * {@code false} by default.
	 */
	default Mono<Boolean> accessWithdrawnNowFromAny(Supplier<? extends Collection<String>> members) {
		return NOT_WITHDRAWN;
	}

	/**
	 * {@link #accessWithdrawnNow()}'s answer when nothing can have been withdrawn (no reload since the request's
	 * admission, mode {@code none}): one instance, so that the check costs a request nothing then.
	 */
	Mono<Boolean> NOT_WITHDRAWN = Mono.just(false);

	/**
	 * Completes with what ended it when a configuration reload ended what this exchange belongs to beyond its server
	 * and its own caller's access: a virtual server's exchange with a member ends when the reload removed the virtual
	 * server ({@code server_removed}), changed it ({@code session_ended}: its sessions end), or withdrew the access of
	 * the client's caller to it ({@code access_withdrawn}). Its open streams end then as a removed server's do, answered
	 * and counted under {@link ReloadEnding#server()}. Never completes by default.
	 */
	default Mono<ReloadEnding> endedByReload() {
		return Mono.never();
	}

	/**
	 * Whether the caller's access to this exchange's server is judged by what the exchange belongs to beyond its
	 * server, not by the server's own {@code allowed-scopes} at each reload: a virtual server's exchange with a member,
	 * whose caller's loss of that member ends it by the virtual server ({@link #endedByReload()}, counted under the
	 * virtual server; a member's stream the relay holds for a merged GET ends with what that GET reads), so that one
	 * client stream is counted once, the same in every mode (review 44o O-L1). {@code false} by default.
	 */
	default boolean accessJudgedBeyondItsServer() {
		return false;
	}

}
