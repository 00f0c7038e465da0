package dev.mcprelay.virtual;

import static dev.mcprelay.virtual.VirtualAnswers.answer;
import static dev.mcprelay.virtual.VirtualAnswers.result;

import java.util.List;
import java.util.Map;

import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.RelayOutcome;
import dev.mcprelay.proxy.BodyCharge;
import dev.mcprelay.proxy.AccessCheckedBeforeForwarding;
import dev.mcprelay.proxy.BoundedBody;
import dev.mcprelay.proxy.MirroredHeaders;
import dev.mcprelay.proxy.OpenStreams;
import dev.mcprelay.proxy.OriginPolicy;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.proxy.SingleValuedHeaders;
import dev.mcprelay.proxy.WholeAnswerWriter;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import reactor.core.publisher.Mono;

/**
 * Serves a virtual server's endpoint (DESIGN section 11): the relay is the server toward the client and a client
 * toward each member, every message to a member going through the member's own relay ({@link MemberCalls}).
 *
 * <p>POST: {@code initialize} joins every member the caller may use, in parallel, and opens a relay session
 * ({@link VirtualSessionLifecycle}, {@link VirtualSessions}); the lists fan out and merge ({@link VirtualLists}); {@code tools/call},
 * {@code prompts/get}, the resource requests and {@code completion/complete} go to the member that published what they
 * name ({@link MemberTargets}) and its answer is relayed as it comes ({@link AnswerRelay}); the client's answer to a
 * member's request goes back to that member ({@link MemberIds}); notifications and {@code logging/setLevel} go to every
 * joined member ({@link MemberFanOut}), but a cancellation of a member's request, which goes to that member alone under
 * its id ({@link MemberNotifications}); {@code ping} is answered here. Every message to a member goes once its stream
 * is open, and a member that lost its session is joined again ({@link MemberRequests}). With {@code tool-search}, the
 * tools are found by search ({@link VirtualToolSearch}). GET takes the members' streams, held from the join and merged
 * ({@link MergedStreams}); DELETE ends every member session and the relay session; a session that ends otherwise
 * (expired, evicted) ends its member sessions too ({@link OrphanedMemberSessions}). Every request but {@code initialize} needs the session's id; an
 * unknown one, or another caller's, is 404. A 2026-07-28 client's request needs no session: it goes to the members as
 * it came, each on its own ({@link StatelessRequests}: {@code server/discover} merged, {@code subscriptions/listen}
 * fanned out and its streams merged: {@link MergedListen}).
 */
@Component
public class VirtualRelay {

	private static final String VERSION = versionOf();

	/** The name the access log gives the virtual server where it answers a request itself. */
	private static final String VIRTUAL_SERVER = "virtual-server";

	private final VirtualServers servers;

	private final OriginPolicy originPolicy;

	private final RelayProperties properties;

	private final VirtualSessions sessions;

	private final MemberRequests requests;

	private final MemberFanOut fanOut;

	private final MergedListen listen;

	private final VirtualLists lists;

	private final MemberTargets targets;

	private final AnswerRelay answers;

	private final MergedStreams streams;

	private final MemberIds ids;

	private final MemberAvailability availability;

	private final VirtualToolSearch toolSearch;

	private final StatelessRequests stateless;

	private final VirtualSessionLifecycle lifecycle;

	private final OrphanedMemberSessions orphans;

	private final OpenStreams openStreams;

	/** {@code timeouts.client-write}'s default, for a virtual server with no member configured. */
	private static final java.time.Duration DEFAULT_CLIENT_WRITE = java.time.Duration.ofSeconds(30);

	VirtualRelay(VirtualServers servers, OriginPolicy originPolicy, RelayProperties properties, VirtualSessions sessions, MemberFanOut fanOut, MergedListen listen, MemberRequests requests, VirtualLists lists, MemberTargets targets,
			AnswerRelay answers, MergedStreams streams, MemberIds ids, MemberAvailability availability,
			VirtualToolSearch toolSearch, StatelessRequests stateless, VirtualSessionLifecycle lifecycle,
			OrphanedMemberSessions orphans, OpenStreams openStreams) {
		this.openStreams = openStreams;
		this.lifecycle = lifecycle;
		this.orphans = orphans;
		this.toolSearch = toolSearch;
		this.stateless = stateless;
		this.servers = servers;
		this.originPolicy = originPolicy;
		this.properties = properties;
		this.sessions = sessions;
		this.fanOut = fanOut;
		this.listen = listen;
		this.requests = requests;
		this.lists = lists;
		this.targets = targets;
		this.answers = answers;
		this.streams = streams;
		this.ids = ids;
		this.availability = availability;
	}

	/** One request on a virtual server's endpoint (its route is a {@link McpRoute.Kind#VIRTUAL} route). */
	public Mono<Void> handle(RelayExchange exchange) {
		VirtualServer server = servers.find(exchange.configuration(), exchange.route().virtualServer());
		return Mono.defer(() -> {
			originPolicy.check(exchange.requestHeaderView());
			// the header rules of a relayed request, the same checks: conflicting lines refused before anything reads them
			SingleValuedHeaders.requireOneValue(exchange.requestHeaderView(), server.id());
			// the writer of what the virtual server composes whole, made when it writes one (a relayed answer is not)
			VirtualCall call = new VirtualCall(exchange, server, access(server, exchange), null,
					(response, body) -> wholeAnswers(exchange, server).write(response, body));
			HttpMethod method = exchange.method();
			if (HttpMethod.POST.equals(method)) {
				return post(call);
			}
			if (HttpMethod.GET.equals(method)) {
				return withSession(call).flatMap(streams::open);
			}
			if (HttpMethod.DELETE.equals(method)) {
				return withSession(call).flatMap(lifecycle::end);
			}
			return Mono.error(RelayFailures.methodNotAllowed(server.id(), method));
		}).onErrorResume(RelayFailure.class, failure -> {
			exchange.record().failed(failure.outcome(), failure.reason());
			// by the request's id once its body was read (session_required, session_not_found, ...), else id null
			return RelayAnswers.respond(exchange.response(), failure, exchange.record().payload());
		});
	}

	/**
	 * How the virtual server writes what it composed whole ({@link VirtualAnswers}): through the one writer of whole
	 * answers ({@link OpenStreams#clientTimed}), on the longest {@code timeouts.client-write} among its members (it
	 * has none of its own; none of its members would cut the client sooner), stalls counted under the virtual server.
	 */
	private WholeAnswerWriter wholeAnswers(RelayExchange exchange, VirtualServer server) {
		java.time.Duration clientWrite = server.members()
			.stream()
			.map(member -> exchange.configuration().properties().servers().get(member))
			.filter(java.util.Objects::nonNull)
			.map(member -> member.timeouts().clientWrite())
			.max(java.util.Comparator.naturalOrder())
			.orElse(DEFAULT_CLIENT_WRITE);
		return openStreams.clientTimed(exchange, server.id(), exchange.method().name(), clientWrite);
	}

	/** The members this caller may use: the front door's decision, or every member when it asks nobody. */
	private VirtualMembers access(VirtualServer server, RelayExchange exchange) {
		VirtualMembers decided = exchange.virtualMembers();
		if (decided != null) {
			return decided;
		}
		if (properties.security().mode() != SecurityMode.NONE) {
			throw RelayFailures.noUsableMember(server.id());
		}
		VirtualMembers all = new VirtualMembers(server.id(), server.members());
		exchange.virtualMembers(all);
		return all;
	}

	private Mono<VirtualCall> withSession(VirtualCall call) {
		String id = call.exchange().requestHeaders().get("Mcp-Session-Id");
		if (id == null || id.isEmpty()) {
			return Mono.error(RelayFailures.sessionRequired(call.server().id()));
		}
		// only a session the store no longer holds is gone; another caller's is refused alike but left alone
		return sessions.find(call.server().id(), id, call.callerId(), () -> orphans.gone(call.server().id(), id))
			.doOnNext(session -> orphans.used(call.server().id(), id))
			.map(call::with)
			.flatMap(lifecycle::holding);
	}

	private Mono<Void> post(VirtualCall call) {
		String virtualId = call.server().id();
		DataSize limit = maxBufferedBody(call);
		return BoundedBody.read(call.exchange().requestBody(), limit,
				() -> RelayFailures.requestTooLarge(virtualId, limit))
			.flatMap(body -> Mono.deferContextual(context -> {
				JsonRpcPayload payload;
				try {
					payload = BodyCharge.parse(context, body, virtualId);
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.unparsableRequest(virtualId, ex));
				}
				call.exchange().record().payload(payload);
				return AccessCheckedBeforeForwarding.stillGranted(call.exchange(), virtualId, payload, Mono::just);
			}))
			.flatMap(payload -> {
				if (payload.batch() || payload.messages().size() != 1) {
					return Mono.error(RelayFailures.batchToVirtualServer(virtualId));
				}
				// Mcp-Method and Mcp-Name must say what the body says, as for a relayed request
				RelayFailure mismatch = MirroredHeaders.mismatch(call.exchange().requestHeaderView(), payload, virtualId);
				if (mismatch != null) {
					return Mono.error(mismatch);
				}
				JsonRpcMessage message = payload.messages().get(0);
				if (message.isRequest() && "initialize".equals(message.method())) {
					return lifecycle.open(call, message.node(), VERSION);
				}
				if (!call.exchange().requestHeaders().contains("Mcp-Session-Id")
						&& StatelessRequests.isStateless(message, call.exchange().requestHeaderView())) {
					return dispatch(call, message);
				}
				return withSession(call).flatMap(session -> dispatch(session, message));
			});
	}

	/** The largest body any member takes: what one message to this endpoint may be. */
	private DataSize maxBufferedBody(VirtualCall call) {
		long most = 0;
		for (String member : call.server().members()) {
			ServerProperties server = call.exchange().configuration().properties().servers().get(member);
			most = Math.max(most, server.maxBufferedBody().toBytes());
		}
		return DataSize.ofBytes(most);
	}

	private Mono<Void> dispatch(VirtualCall call, JsonRpcMessage message) {
		ObjectNode node = message.node();
		if (message.kind() == JsonRpcMessage.Kind.RESPONSE) {
			return answerToMember(call, node);
		}
		if (message.kind() == JsonRpcMessage.Kind.NOTIFICATION) {
			return fanOut.notify(call, message);
		}
		String method = message.method();
		if ("server/discover".equals(method)) {
			return stateless.discover(call, node, VERSION).flatMap(response -> answer(call, response));
		}
		if ("subscriptions/listen".equals(method)) {
			return listen.listen(call, node);
		}
		if ("ping".equals(method)) {
			call.exchange().record().stoppedBy(RelayOutcome.RESPONDED, VIRTUAL_SERVER);
			return answer(call, result(node.get("id"), JsonRpcParser.mapper().createObjectNode()));
		}
		if (call.server().toolSearch().enabled() && "tools/list".equals(method)) {
			return toolSearch.list(call, node).flatMap(page -> answer(call, page.response(), page.warnings()));
		}
		if (call.server().toolSearch().enabled() && "tools/call".equals(method)) {
			String tool = node.path("params").path("name").asText("");
			if (ToolSearchPolicy.SEARCH_TOOL.equals(tool)) {
				return toolSearch.search(call, node).flatMap(messages -> messages.size() == 1
						? answer(call, messages.get(0))
						: answer(call, messages.get(messages.size() - 1), messages.subList(0, messages.size() - 1)));
			}
			ObjectNode refusal = toolSearch.refusal(call, node, tool);
			if (refusal != null) {
				return answer(call, refusal);
			}
		}
		if (VirtualLists.isList(method)) {
			return lists.page(call, node).flatMap(page -> answer(call, page.response(), page.warnings()));
		}
		if ("logging/setLevel".equals(method)) {
			return fanOut.setLevel(call, node);
		}
		if (MemberTargets.isRouted(method)) {
			return targets.target(call, node).flatMap(target -> target.error() != null ? answer(call, target.error())
					: forward(call, target.member(), target.message()));
		}
		return answer(call, JsonRpcErrors.error(node.get("id"), JsonRpcErrorCodes.METHOD_NOT_FOUND,
				"Method not found: " + method, Map.of("reason", "method_not_found")));
	}

	/**
	 * Sends {@code message} to {@code member} and relays its answer (after what the client is told of a member joined
	 * again), or says which member is unavailable; a call found to have reached the member while it had no stream
	 * ({@link MemberHadNoStream}) is answered with that error when it is still waiting for the member.
	 */
	private Mono<Void> forward(VirtualCall call, String member, ObjectNode message) {
		// the client's request as parsed here, handed on: the member's relay does not parse it again
		return requests.call(call, member, MemberMessage.routed(call.exchange().record().payload(), message))
			.flatMap(sent -> answers.relay(call, sent.answer(), sent.notices(), sent.withoutStream(),
					() -> new MemberHadNoStream(member).error(message.get("id"))))
			.onErrorResume(MemberHadNoStream.class, failure -> answer(call, failure.error(message.get("id"))))
			.onErrorResume(MemberUnavailable.class, failure -> {
				ObjectNode warning = availability.unavailable(call.server().id(), failure);
				return answer(call, JsonRpcErrors.error(message.get("id"), JsonRpcErrorCodes.INTERNAL_ERROR,
						failure.getMessage(), Map.of("reason", "member_unavailable", "member", failure.member())),
						List.of(warning));
			});
	}

	/** The client's answer to a member's request: to that member, with the member's own id. */
	private Mono<Void> answerToMember(VirtualCall call, ObjectNode answer) {
		MemberIds.MemberRequestId origin = call.stateless() ? null : ids.unwrap(call.sessionId(), answer.get("id"));
		if (origin == null || !call.joined(origin.member()) || !call.usable().contains(origin.member())) {
			return Mono.error(RelayFailures.unknownServerRequest(call.server().id()));
		}
		ObjectNode restored = answer.deepCopy();
		// (a 2026-07-28 client has no session: a member asks it nothing outside a result, so no id is its)
		restored.set("id", origin.id());
		return requests.post(call, origin.member(), JsonRpcErrors.toBytes(restored), false)
			.flatMap(sent -> {
				if (sent.answer() != null) {
					return answers.relay(call, sent.answer(), sent.notices());
				}
				// the member lost the session its request was in: nobody waits for this answer any more, and what
				// its join tells the client waits for the next request to it
				requests.untold(call, origin.member(), sent.notices());
				return MemberFanOut.accepted(call);
			})
			.onErrorResume(MemberUnavailable.class, failure -> {
				availability.unavailable(call.server().id(), failure);
				return MemberFanOut.accepted(call);
			});
	}

	private static String versionOf() {
		String version = VirtualRelay.class.getPackage().getImplementationVersion();
		return version != null ? version : "dev";
	}

}
