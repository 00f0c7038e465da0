package dev.mcprelay.metrics;

/**
 * Every meter the relay publishes, and every tag on them, in one place (DESIGN section 6). Prometheus names come out
 * with dots as underscores and unit suffixes: {@code mcp_relay_requests_total}, {@code mcp_relay_request_duration_seconds},
 * {@code mcp_relay_response_bytes}, {@code mcp_relay_streams_active}, {@code mcp_relay_interceptor_duration_seconds},
 * {@code mcp_relay_interceptor_rejections_total}, {@code mcp_relay_auth_failures_total},
 * {@code mcp_relay_rate_limit_rejections_total}, {@code mcp_relay_upstream_unmatched_total}.
 *
 * <p>Every tag value comes from a bounded set: configured server ids (or {@code unknown}), the known MCP methods (or
 * {@code other}), status classes, outcomes, stage names and interceptor names. Never a session id, user, JSON-RPC
 * id or tool argument.
 */
public final class RelayMeters {

	/** Counter: client requests on {@code /mcp/{server}}, one per HTTP exchange. Tags: all seven request tags. */
	public static final String REQUESTS = "mcp.relay.requests";

	/**
	 * Timer: from the request's arrival until its response ends; for a stream, until the stream ends. Histogram
	 * buckets from 10 ms to 120 s. Tags: all seven request tags.
	 */
	public static final String REQUEST_DURATION = "mcp.relay.request.duration";

	/**
	 * Distribution summary: body bytes the client received, in bytes. Histogram buckets from 1 KB to 50 MB. Tags: all
	 * seven request tags.
	 */
	public static final String RESPONSE_BYTES = "mcp.relay.response.bytes";

	/**
	 * Counter: messages a virtual server relayed to its members (DESIGN section 11), one per message, apart from
	 * {@link #REQUESTS} (which counts the client's request once, under the virtual server). Tags: all seven request tags,
	 * {@link #SERVER} the member's id and {@link #VIRTUAL_SERVER} the virtual server's.
	 */
	public static final String VIRTUAL_MEMBER_REQUESTS = "mcp.relay.virtual.member.requests";

	/** Timer: {@link #REQUEST_DURATION} of a message a virtual server relayed to a member. Tags: as {@link #VIRTUAL_MEMBER_REQUESTS}. */
	public static final String VIRTUAL_MEMBER_REQUEST_DURATION = "mcp.relay.virtual.member.request.duration";

	/** Distribution summary: {@link #RESPONSE_BYTES} of a member's answer to a virtual server. Tags: as {@link #VIRTUAL_MEMBER_REQUESTS}. */
	public static final String VIRTUAL_MEMBER_RESPONSE_BYTES = "mcp.relay.virtual.member.response.bytes";

	/** Gauge: SSE streams open right now, per configured server. Tag: {@link #SERVER}. */
	public static final String ACTIVE_STREAMS = "mcp.relay.streams.active";

	/**
	 * Gauge: sessions bridged to a legacy HTTP+SSE upstream ({@code transport: sse}) open right now on this replica,
	 * each holding one upstream event stream. Tag: {@link #SERVER}.
	 */
	public static final String BRIDGED_SESSIONS = "mcp.relay.sessions.bridged";

	/**
	 * Counter: streams closed because the client read nothing for {@code timeouts.client-write}. Tags:
	 * {@link #SERVER}.
	 */
	public static final String CLIENT_STALLS = "mcp.relay.client.stalls";

	/**
	 * Timer: one interceptor's handling of one message, until its {@code Mono} completed. Tags: {@link #SERVER},
	 * {@link #STAGE}, {@link #INTERCEPTOR}, {@link #RESULT}.
	 */
	public static final String INTERCEPTOR_DURATION = "mcp.relay.interceptor.duration";

	/**
	 * Counter: messages an interceptor refused (a {@code RejectError}, or a failure of the interceptor answered as
	 * -32603). Tags: {@link #SERVER}, {@link #STAGE}, {@link #INTERCEPTOR}.
	 */
	public static final String INTERCEPTOR_REJECTIONS = "mcp.relay.interceptor.rejections";

	/**
	 * Counter: requests the front door refused ({@code mcp-relay.security}). Tags: {@link #REASON} (e.g.
	 * {@code missing_credentials}, {@code invalid_api_key}, {@code token_expired}, {@code server_not_allowed}) and
	 * {@link #SERVER} ({@code unknown} for a path naming no configured server, {@code none} for a path that is no MCP
	 * path).
	 */
	public static final String AUTH_FAILURES = "mcp.relay.auth.failures";

	/** Counter: JSON-RPC requests a rate-limit rule refused. Tags: {@link #RULE}, {@link #SERVER}. */
	public static final String RATE_LIMIT_REJECTIONS = "mcp.relay.rate.limit.rejections";

	/**
	 * Counter: rate-limit checks that could not reach the shared store (Redis); those requests were let through.
	 * Tag: {@link #RULE}.
	 */
	public static final String RATE_LIMIT_STORE_ERRORS = "mcp.relay.rate.limit.store.errors";

	/**
	 * Counter: calls to the shared session store (Redis) that failed or timed out: the virtual-server, tool-search and
	 * legacy-SSE requests that needed them were answered 503 ({@code session_store_unavailable}). Registered at 0 with
	 * {@code sessions.store: redis}.
	 */
	public static final String SESSION_STORE_ERRORS = "mcp.relay.session.store.errors";

	/**
	 * Counter: times a queue of messages waiting for a client was full ({@code sessions.max-held-bytes} or its count
	 * bound), by {@link #SERVER} and {@link #QUEUE}: {@code bridge_answer} (a POST's answers on a legacy SSE session:
	 * the POST failed with {@code held_messages_full}), {@code bridge_stream} (a message for a legacy SSE session's GET
	 * stream was dropped), {@code relay_messages} (notifications of the relay's own for a GET stream were dropped).
	 */
	public static final String HELD_OVERFLOWS = "mcp.relay.held.overflows";

	/**
	 * Counter: open streams the relay ended because a configuration reload withdrew what governed them, by
	 * {@link #SERVER} and {@link #REASON} ({@code server_removed}).
	 */
	public static final String STREAMS_ENDED = "mcp.relay.streams.ended";

	/** Tag: which queue of messages waiting for a client ({@link #HELD_OVERFLOWS}). */
	public static final String QUEUE = "queue";

	/** Counter: sessions the relay ended itself, by {@link #SERVER} and {@link #REASON} ({@code max_per_caller}). */
	public static final String SESSIONS_EVICTED = "mcp.relay.sessions.evicted";

	/**
	 * Counter: upstream answers that matched no request waiting for one, and upstream messages without an id that
	 * name a request method, by {@link #SERVER} and {@link #HANDLING}: {@code paired} (taken as the answer of a POST's
	 * one request still waiting), {@code inferred} (its method known by its result's shape), {@code relayed} (no
	 * interceptor waits where it could belong) or {@code dropped} (held back, logged). {@code dropped} is registered at
	 * 0 for every configured server.
	 */
	public static final String UNMATCHED_ANSWERS = "mcp.relay.upstream.unmatched";

	/** Tag: how the relay handled an upstream message that matched no request ({@link #UNMATCHED_ANSWERS}). */
	public static final String HANDLING = "handling";

	/**
	 * Gauge: bytes of request and response bodies the relay holds in memory now for its clients' requests, of the
	 * budget {@code mcp-relay.max-buffered-bodies}; past the budget a request gets 503 ({@code relay_overloaded}).
	 */
	public static final String BUFFERED_BODIES = "mcp.relay.buffered.bodies";

	/** Tag: the configured server id, or {@code unknown} for a path naming no configured server. */
	public static final String SERVER = "server";

	/**
	 * Tag: the configured virtual server a request came through (DESIGN section 11), or {@code none} for a request to
	 * a server itself. A request to a virtual server is counted once in {@link #REQUESTS} with {@link #SERVER} the
	 * virtual server's id; each message relayed to a member is counted in {@link #VIRTUAL_MEMBER_REQUESTS}, with
	 * {@link #SERVER} the member's.
	 */
	public static final String VIRTUAL_SERVER = "virtual_server";

	/** Counter: tools or prompts of a virtual server's member left out because an earlier member published the name. */
	public static final String VIRTUAL_NAME_CLASHES = "mcp.relay.virtual.name.clashes";

	/** Counter: a member of a virtual server that could not be used (down, slow, refused), by {@link #SERVER}. */
	public static final String VIRTUAL_MEMBER_UNAVAILABLE = "mcp.relay.virtual.member.unavailable";

	/**
	 * Counter: messages a virtual server's member sent on its stream (requests to the client: sampling, elicitation,
	 * roots; and notifications) that the relay could not deliver to the client, by {@link #VIRTUAL_SERVER},
	 * {@link #SERVER} (the member), {@link #KIND} and {@link #REASON}.
	 */
	public static final String VIRTUAL_UNDELIVERED = "mcp.relay.virtual.messages.undelivered";

	/** Tag: {@code request} or {@code notification}. */
	public static final String KIND = "kind";

	/** Tag: {@code POST}, {@code GET}, {@code DELETE}, or {@code other}. */
	public static final String HTTP_METHOD = "http_method";

	/**
	 * Tag: the JSON-RPC method of a POST's message when MCP defines it ({@code tools/call}, ...), {@code other} for any
	 * other method, {@code response} for a client's answer to a server request, {@code batch} for a batch, and
	 * {@code none} for GET, DELETE and bodies that are not JSON-RPC.
	 */
	public static final String RPC_METHOD = "rpc_method";

	/** Tag: the upstream's status class, {@code 2xx} to {@code 5xx}, or {@code error} when the upstream gave none. */
	public static final String STATUS_CLASS = "status_class";

	/**
	 * Tag: {@code forwarded} (the upstream answered), {@code rejected} (an interceptor refused the request, or the
	 * relay refused it as invalid), {@code responded} (an interceptor answered it), {@code failed} (the upstream
	 * could not be reached, timed out, misbehaved, or its stream broke) or {@code shutdown} (the relay's shutdown cut
	 * it before its answer came; see {@link RelayOutcome}).
	 */
	public static final String OUTCOME = "outcome";

	/**
	 * Tag: the configured API-key client that sent the request, or {@code none} (anonymous callers, and callers with
	 * tokens: a token's subject is unbounded and never a tag).
	 */
	public static final String CLIENT = "client";

	/** Tag: why the front door refused a request. */
	public static final String REASON = "reason";

	/** Tag: a rate-limit rule's name. */
	public static final String RULE = "rule";

	/** Tag: the interception stage, e.g. {@code tools-call-request}. */
	public static final String STAGE = "stage";

	/** Tag: the interceptor's {@code name()}. */
	public static final String INTERCEPTOR = "interceptor";

	/** Tag: what an interceptor decided: {@code proceed}, {@code reject}, {@code respond} or {@code replace_error}. */
	public static final String RESULT = "result";

	private RelayMeters() {
	}

}
