package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.server.ServerWebExchange;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.config.SecurityMode;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.interceptors.toolsearch.ToolSearchPolicy;
import dev.mcprelay.jsonrpc.JsonRpcErrorCodes;
import dev.mcprelay.jsonrpc.JsonRpcErrors;
import dev.mcprelay.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcParseException;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.metrics.ExchangeRecord;
import dev.mcprelay.metrics.RelayOutcome;
import dev.mcprelay.proxy.BoundedBody;
import dev.mcprelay.proxy.OriginPolicy;
import dev.mcprelay.proxy.RelayAnswers;
import dev.mcprelay.proxy.RelayFailure;
import dev.mcprelay.proxy.RelayFailures;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.route.VirtualMembers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Serves a virtual server's endpoint (DESIGN section 11): the relay is the server toward the client and a client
 * toward each member, every message to a member going through the member's own relay ({@link MemberCalls}).
 *
 * <p>POST: {@code initialize} joins every member the caller may use, in parallel, and opens a relay session
 * ({@link VirtualSessions}); the lists fan out and merge ({@link VirtualLists}); {@code tools/call},
 * {@code prompts/get}, the resource requests and {@code completion/complete} go to the member that published what they
 * name ({@link MemberTargets}) and its answer is relayed as it comes ({@link AnswerRelay}); the client's answer to a
 * member's request goes back to that member ({@link MemberIds}); notifications and {@code logging/setLevel} go to every
 * joined member; {@code ping} is answered here. With {@code tool-search}, the tools are found by search
 * ({@link VirtualToolSearch}). GET merges the members' streams ({@link MergedStreams}); DELETE ends
 * every member session and the relay session. Every request but {@code initialize} needs the session's id; an
 * unknown one, or another caller's, is 404. A 2026-07-28 client's request needs no session: it goes to the members as
 * it came, each on its own ({@link StatelessRequests}: {@code server/discover} merged, {@code subscriptions/listen}
 * fanned out and its streams merged).
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

	private final MemberJoin join;

	private final MemberCalls calls;

	private final MemberRequests requests;

	private final VirtualLists lists;

	private final MemberTargets targets;

	private final AnswerRelay answers;

	private final MergedStreams streams;

	private final MemberIds ids;

	private final MemberAvailability availability;

	private final VirtualToolSearch toolSearch;

	private final StatelessRequests stateless;

	VirtualRelay(VirtualServers servers, OriginPolicy originPolicy, RelayProperties properties, VirtualSessions sessions,
			MemberJoin join, MemberCalls calls, MemberRequests requests, VirtualLists lists, MemberTargets targets,
			AnswerRelay answers, MergedStreams streams, MemberIds ids, MemberAvailability availability,
			VirtualToolSearch toolSearch, StatelessRequests stateless) {
		this.toolSearch = toolSearch;
		this.stateless = stateless;
		this.servers = servers;
		this.originPolicy = originPolicy;
		this.properties = properties;
		this.sessions = sessions;
		this.join = join;
		this.calls = calls;
		this.requests = requests;
		this.lists = lists;
		this.targets = targets;
		this.answers = answers;
		this.streams = streams;
		this.ids = ids;
		this.availability = availability;
	}

	/** One request on a virtual server's endpoint ({@code route} is a {@link McpRoute.Kind#VIRTUAL} route). */
	public Mono<Void> handle(McpRoute route, ServerWebExchange exchange) {
		VirtualServer server = servers.find(route.virtualServer());
		return Mono.defer(() -> {
			originPolicy.check(exchange.getRequest().getHeaders());
			VirtualCall call = new VirtualCall(exchange, server, access(server, exchange), null);
			HttpMethod method = exchange.getRequest().getMethod();
			if (HttpMethod.POST.equals(method)) {
				return post(call);
			}
			if (HttpMethod.GET.equals(method)) {
				return withSession(call).flatMap(streams::open);
			}
			if (HttpMethod.DELETE.equals(method)) {
				return withSession(call).flatMap(this::end);
			}
			return Mono.error(RelayFailures.methodNotAllowed(server.id(), method));
		}).onErrorResume(RelayFailure.class, failure -> {
			ExchangeRecord.of(exchange).failed(failure.isUpstreamFault(), failure.reason());
			return RelayAnswers.respond(exchange.getResponse(), failure, null);
		});
	}

	/** The members this caller may use: the front door's decision, or every member when it asks nobody. */
	private VirtualMembers access(VirtualServer server, ServerWebExchange exchange) {
		VirtualMembers decided = VirtualMembers.of(exchange);
		if (decided != null) {
			return decided;
		}
		if (properties.security().mode() != SecurityMode.NONE) {
			throw RelayFailures.noUsableMember(server.id());
		}
		VirtualMembers all = new VirtualMembers(server.id(), server.members());
		exchange.getAttributes().put(VirtualMembers.ATTRIBUTE, all);
		return all;
	}

	private Mono<VirtualCall> withSession(VirtualCall call) {
		String id = call.exchange().getRequest().getHeaders().getFirst("Mcp-Session-Id");
		if (id == null || id.isEmpty()) {
			return Mono.error(RelayFailures.sessionRequired(call.server().id()));
		}
		return sessions.find(call.server().id(), id, call.callerId()).map(call::with);
	}

	private Mono<Void> post(VirtualCall call) {
		String virtualId = call.server().id();
		DataSize limit = maxBufferedBody(call);
		return BoundedBody.read(call.exchange().getRequest().getBody(), limit,
				() -> RelayFailures.requestTooLarge(virtualId, limit))
			.flatMap(body -> {
				JsonRpcPayload payload;
				try {
					payload = JsonRpcParser.parseClientBody(body);
				}
				catch (JsonRpcParseException ex) {
					return Mono.error(RelayFailures.unparsableRequest(virtualId, ex));
				}
				ExchangeRecord.of(call.exchange()).payload(payload);
				if (payload.batch() || payload.messages().size() != 1) {
					return Mono.error(RelayFailures.batchToVirtualServer(virtualId));
				}
				JsonRpcMessage message = payload.messages().get(0);
				if (message.isRequest() && "initialize".equals(message.method())) {
					return initialize(call, message.node());
				}
				if (!call.exchange().getRequest().getHeaders().containsHeader("Mcp-Session-Id")
						&& StatelessRequests.isStateless(message, call.exchange().getRequest().getHeaders())) {
					return dispatch(call, message);
				}
				return withSession(call).flatMap(session -> dispatch(session, message));
			});
	}

	/** The largest body any member takes: what one message to this endpoint may be. */
	private DataSize maxBufferedBody(VirtualCall call) {
		long most = 0;
		for (String member : call.server().members()) {
			ServerProperties server = properties.servers().get(member);
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
			return notifyMembers(call, message);
		}
		String method = message.method();
		if ("server/discover".equals(method)) {
			return stateless.discover(call, node, VERSION).flatMap(response -> answer(call, response));
		}
		if ("subscriptions/listen".equals(method)) {
			return stateless.listen(call, node);
		}
		if ("ping".equals(method)) {
			ExchangeRecord.of(call.exchange()).stoppedBy(RelayOutcome.RESPONDED, VIRTUAL_SERVER);
			return answer(call, result(node.get("id"), JsonRpcParser.mapper().createObjectNode()));
		}
		if (call.server().toolSearch().enabled() && "tools/list".equals(method)) {
			return toolSearch.list(call, node).flatMap(response -> answer(call, response));
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
			return Flux.fromIterable(call.usable())
				.filter(call::reachable)
				.flatMap(member -> requests.request(call, member, node).onErrorResume(error -> Mono.empty()))
				.then(Mono.defer(() -> answer(call, result(node.get("id"), JsonRpcParser.mapper().createObjectNode()))));
		}
		if (MemberTargets.isRouted(method)) {
			return targets.target(call, node).flatMap(target -> target.error() != null ? answer(call, target.error())
					: forward(call, target.member(), target.message()));
		}
		return answer(call, JsonRpcErrors.error(node.get("id"), JsonRpcErrorCodes.METHOD_NOT_FOUND,
				"Method not found: " + method, Map.of("reason", "method_not_found")));
	}

	/** Sends {@code message} to {@code member} and relays its answer, or says which member is unavailable. */
	private Mono<Void> forward(VirtualCall call, String member, ObjectNode message) {
		return requests.sessionWith(call, member)
			.flatMap(session -> calls.send(call.exchange(), call.access(), member, HttpMethod.POST, session, null,
					JsonRpcErrors.toBytes(message)))
			.flatMap(answer -> answers.relay(call, answer))
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
		return calls.send(call.exchange(), call.access(), origin.member(), HttpMethod.POST,
				call.memberSession(origin.member()), null, JsonRpcErrors.toBytes(restored))
			.flatMap(memberAnswer -> answers.relay(call, memberAnswer));
	}

	/**
	 * A notification: to every joined member (a cancellation reaches the one that holds the request, the others have
	 * no request by that id); {@code notifications/initialized} was sent each member when it was joined. 202.
	 */
	private Mono<Void> notifyMembers(VirtualCall call, JsonRpcMessage message) {
		Mono<Void> sent = "notifications/initialized".equals(message.method()) ? Mono.empty()
				: Flux.fromIterable(call.usable())
					.filter(call::reachable)
					.flatMap(member -> calls
						.send(call.exchange(), call.access(), member, HttpMethod.POST, call.memberSession(member), null,
								JsonRpcErrors.toBytes(message.node()))
						.flatMap(MemberAnswer::discard)
						.onErrorResume(error -> Mono.empty()))
					.then();
		return sent.then(Mono.defer(() -> {
			ServerHttpResponse response = call.exchange().getResponse();
			response.setStatusCode(HttpStatus.ACCEPTED);
			ExchangeRecord.of(call.exchange()).forwarded(HttpStatus.ACCEPTED.value());
			if (!call.stateless()) {
				response.getHeaders().set("Mcp-Session-Id", call.session().id());
			}
			return response.setComplete();
		}));
	}

	/** {@code initialize}: joins every usable member at once and opens the session with those that answered. */
	private Mono<Void> initialize(VirtualCall call, ObjectNode initialize) {
		String virtualId = call.server().id();
		List<ObjectNode> warnings = new ArrayList<>();
		return Flux.fromIterable(call.usable())
			.flatMapSequential(member -> join.join(call, member, initialize)
				.onErrorResume(MemberUnavailable.class, failure -> {
					synchronized (warnings) {
						warnings.add(availability.unavailable(virtualId, failure));
					}
					return Mono.empty();
				}), Math.max(1, call.usable().size()))
			.collectList()
			.flatMap(joined -> {
				if (joined.isEmpty()) {
					return Mono.error(RelayFailures.noMemberAvailable(virtualId));
				}
				String sessionId = VirtualSessions.mint();
				Map<String, MemberSession> members = new java.util.LinkedHashMap<>();
				joined.forEach(member -> members.put(member.member(), member.session()));
				ObjectNode result = InitializeMerge.result(virtualId, VERSION,
						initialize.path("params").path("protocolVersion").asText(null), joined);
				return sessions.open(virtualId, sessionId, call.callerId(), initialize, members)
					// A session the store could not keep is ended with every member, not left open behind them.
					.onErrorResume(failure -> endMembers(call, members).then(Mono.error(failure)))
					.then(Mono.defer(() -> {
						ExchangeRecord.of(call.exchange()).forwarded(HttpStatus.OK.value());
						HttpHeaders headers = new HttpHeaders();
						headers.set("Mcp-Session-Id", sessionId);
						return RelayAnswers.answer(call.exchange().getResponse(), HttpStatus.OK,
								List.of(result(initialize.get("id"), result)), false, headers);
					}));
			});
	}

	/** DELETE: ends every member session, then the relay session. */
	private Mono<Void> end(VirtualCall call) {
		return endMembers(call, call.session().members())
			.then(sessions.end(call.server().id(), call.session().id(), call.callerId()))
			.then(Mono.defer(() -> {
				call.exchange().getResponse().setStatusCode(HttpStatus.OK);
				ExchangeRecord.of(call.exchange()).forwarded(HttpStatus.OK.value());
				return call.exchange().getResponse().setComplete();
			}));
	}

	/** Ends the sessions with {@code members} (DELETE to each; what they answer does not matter). */
	private Mono<Void> endMembers(VirtualCall call, Map<String, MemberSession> members) {
		return Flux.fromIterable(members.entrySet())
			.flatMap(member -> calls
				.send(call.exchange(), call.access(), member.getKey(), HttpMethod.DELETE, member.getValue(), null, null)
				.flatMap(MemberAnswer::discard)
				.onErrorResume(error -> Mono.empty()))
			.then();
	}

	private Mono<Void> answer(VirtualCall call, ObjectNode response) {
		return answer(call, response, List.of());
	}

	/**
	 * Answers with {@code response}, after {@code warnings} when there are any and the client takes an event stream
	 * (else the warnings are left out: a JSON answer holds one message).
	 */
	private Mono<Void> answer(VirtualCall call, ObjectNode response, List<ObjectNode> warnings) {
		ServerHttpResponse http = call.exchange().getResponse();
		record(call, response);
		if (!warnings.isEmpty() && acceptsEventStream(call)) {
			List<ObjectNode> messages = new ArrayList<>(warnings);
			messages.add(response);
			Mono<Void> written = RelayAnswers.stream(http, messages);
			// Set once the stream's headers are (the write commits them when subscribed).
			if (!call.stateless()) {
				http.getHeaders().set("Mcp-Session-Id", call.session().id());
			}
			return written;
		}
		HttpHeaders headers = new HttpHeaders();
		if (call.session() != null) {
			headers.set("Mcp-Session-Id", call.session().id());
		}
		return RelayAnswers.answer(http, HttpStatus.OK, List.of(response), false, headers);
	}

	/**
	 * What the access log and meters say of an answer the virtual server wrote: a result made of its members' answers
	 * is forwarded (unless the relay answered it itself), an error is the client's mistake unless a member failed.
	 */
	private static void record(VirtualCall call, ObjectNode response) {
		ExchangeRecord record = ExchangeRecord.of(call.exchange());
		if (response.has("error")) {
			String reason = response.path("error").path("data").path("reason").asText("invalid_params");
			record.failed("member_unavailable".equals(reason), reason);
		}
		else if (!record.stoppedHere()) {
			record.forwarded(HttpStatus.OK.value());
		}
	}

	private static boolean acceptsEventStream(VirtualCall call) {
		try {
			return call.exchange().getRequest().getHeaders().getAccept().stream()
				.anyMatch(type -> type.isCompatibleWith(MediaType.TEXT_EVENT_STREAM) && !type.isWildcardType());
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static ObjectNode result(JsonNode id, ObjectNode result) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", id);
		response.set("result", result);
		return response;
	}

	private static String versionOf() {
		String version = VirtualRelay.class.getPackage().getImplementationVersion();
		return version != null ? version : "dev";
	}

}
