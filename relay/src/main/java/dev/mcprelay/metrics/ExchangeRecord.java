package dev.mcprelay.metrics;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.http.HttpMethod;

import com.fasterxml.jackson.databind.JsonNode;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.jsonrpc.JsonRpcMessage;
import dev.mcprelay.jsonrpc.JsonRpcPayload;
import dev.mcprelay.route.McpRoute;
import dev.mcprelay.tracing.ExchangeTrace;

/**
 * What one client request on {@code /mcp/{server}} did, filled in by the relay as the request goes and read once,
 * when its response ends, for the meters and the access-log line. Fields are written from the exchange's serialized
 * signals and read after the last of them.
 */
public final class ExchangeRecord {

	/** The virtual server tag value of a request to a server itself. */
	public static final String NO_VIRTUAL_SERVER = "none";

	/** The server tag value for a path that names no configured server. */
	public static final String UNKNOWN_SERVER = "unknown";

	private final HttpMethod httpMethod;

	private final long startNanos = System.nanoTime();

	private final AtomicLong bytes = new AtomicLong();

	private volatile String server = UNKNOWN_SERVER;

	private volatile String virtualServer = NO_VIRTUAL_SERVER;

	private volatile JsonRpcPayload payload;

	private volatile Integer upstreamStatus;

	/** The status the relay answered its client with, once the response's head went out. */
	private volatile Integer status;

	/** The server id as the path named it, when it names no configured server (for the log, never a tag). */
	private volatile String namedServer;

	private volatile String requestId;

	private volatile String rule;

	/** Whether the record is of a virtual server's message to a member, whose answer is the member's status. */
	private final boolean memberMessage;

	private volatile RelayOutcome outcome;

	private volatile String interceptor;

	private volatile String reason;

	private volatile Caller caller = Caller.ANONYMOUS;

	private volatile ExchangeTrace trace = ExchangeTrace.NONE;

	ExchangeRecord(HttpMethod httpMethod) {
		this(httpMethod, false);
	}

	private ExchangeRecord(HttpMethod httpMethod, boolean memberMessage) {
		this.httpMethod = httpMethod;
		this.memberMessage = memberMessage;
	}

	/**
	 * A new record of a request with {@code method}, for a component that observes an exchange of its own (a virtual
	 * server's message to a member) and records it with {@link ExchangeObservations} when it ends.
	 */
	public static ExchangeRecord begin(HttpMethod method) {
		return new ExchangeRecord(method, true);
	}

	/**
	 * A new record of a request with {@code method} whose routing decision is {@code route}, born with the server (or
	 * virtual server) the decision names: for what observes a client's request before anything else runs.
	 */
	public static ExchangeRecord begin(HttpMethod method, McpRoute route) {
		ExchangeRecord record = new ExchangeRecord(method);
		if (route.configuredId() != null) {
			record.server(route.configuredId());
		}
		else if (route.kind() == McpRoute.Kind.UNKNOWN_SERVER) {
			record.namedServer = route.target();
		}
		if (route.virtualServer() != null) {
			record.virtualServer(route.virtualServer());
		}
		return record;
	}

	/** The request names configured server {@code id}. */
	public void server(String id) {
		this.server = id;
	}

	/**
	 * The request's id for the log: the client's {@code X-Request-Id}, or one the relay made. A virtual server's
	 * messages to its members carry the id of the client's request they serve.
	 */
	public void requestId(String id) {
		this.requestId = id;
	}

	String requestId() {
		return requestId;
	}

	/** The relay answered its client with {@code status} (the response's head went out). */
	public void answered(int status) {
		this.status = status;
	}

	/** The request came through configured virtual server {@code id}. */
	public void virtualServer(String id) {
		this.virtualServer = id;
	}

	String virtualServerTag() {
		return virtualServer;
	}

	/** Who sent the request, once the front door let it in. */
	public void caller(Caller caller) {
		this.caller = caller;
	}

	/** The telemetry in MCP's terms of the POST's messages, ended with the exchange ({@link #endTrace}). */
	public void trace(ExchangeTrace trace) {
		this.trace = trace;
	}

	/** The trace id of the request's first message, or {@code null} when it is not traced. */
	String traceId() {
		return trace.traceId();
	}

	/** The exchange ended: its messages' operations end, failed with its failure reason if it has one. */
	void endTrace(boolean cancelled) {
		String failure = reason;
		trace.end(failure != null ? failure : cancelled ? "client_disconnected" : null);
	}

	/** The POST body, parsed. */
	public void payload(JsonRpcPayload payload) {
		this.payload = payload;
	}

	/** The POST body, parsed, once it was read: what a failure after it answers by ids; {@code null} before. */
	public JsonRpcPayload payload() {
		return payload;
	}

	/** The upstream answered with {@code status}. */
	public void forwarded(int status) {
		this.upstreamStatus = status;
		this.outcome = RelayOutcome.FORWARDED;
	}

	/** An interceptor answered ({@link RelayOutcome#RESPONDED}) or refused ({@link RelayOutcome#REJECTED}) it. */
	public void stoppedBy(RelayOutcome outcome, String interceptor) {
		this.outcome = outcome;
		this.interceptor = interceptor;
	}

	/**
	 * The first rejection among {@code verdicts}, if any, is the log's: the interceptor that made it, and the
	 * {@code reason} and {@code rule} of its error's {@code data}, as the client reads them in {@code error.data}, or,
	 * for an error that carries a log reason of its own ({@link dev.mcprelay.api.RejectError#logReason()}: a policy's
	 * refusal, which the client reads as an unknown tool), that reason and its detail as the rule. For a request
	 * refused whole, and for one refused in part (a batch, an answer on a stream) alike.
	 */
	public void refusals(java.util.List<dev.mcprelay.chain.Verdict> verdicts) {
		for (dev.mcprelay.chain.Verdict verdict : verdicts) {
			if (verdict.kind() == dev.mcprelay.chain.Verdict.Kind.REJECT && verdict.error() != null) {
				this.interceptor = verdict.interceptor();
				dev.mcprelay.api.RejectError error = verdict.error();
				if (error.logReason() != null) {
					// a refusal that tells the client less than the log may know (a policy's: "Unknown tool")
					this.reason = error.logReason();
					this.rule = error.logDetail();
					return;
				}
				JsonNode data = error.data();
				this.reason = text(data, "reason");
				this.rule = text(data, "rule");
				return;
			}
		}
	}

	private static String text(JsonNode data, String field) {
		JsonNode value = data == null ? null : data.get(field);
		return value != null && value.isValueNode() && !value.isNull() ? value.asText() : null;
	}

	/** Whether an interceptor (or the relay itself) answered or refused the request ({@link #stoppedBy}). */
	public boolean stoppedHere() {
		return outcome == RelayOutcome.RESPONDED || outcome == RelayOutcome.REJECTED;
	}

	/**
	 * The relay answered with a failure.
	 *
	 * @param upstreamFault whether the upstream (or the relay) was at fault ({@link RelayOutcome#FAILED}) rather than
	 * the client's request ({@link RelayOutcome#CLIENT_ERROR})
	 * @param reason the failure's {@code error.data.reason}
	 */
	public void failed(boolean upstreamFault, String reason) {
		failed(upstreamFault ? RelayOutcome.FAILED : RelayOutcome.CLIENT_ERROR, reason);
	}

	/**
	 * The relay answered with a failure whose outcome it knows: {@link RelayOutcome#FAILED},
	 * {@link RelayOutcome#CLIENT_ERROR} or {@link RelayOutcome#OVERLOADED}.
	 *
	 * @param reason the failure's {@code error.data.reason}
	 */
	public void failed(RelayOutcome outcome, String reason) {
		this.outcome = outcome;
		this.reason = reason;
	}

	/**
	 * The relay's shutdown cut the request before its answer came ({@link RelayOutcome#SHUTDOWN}, reason
	 * {@code relay_shutting_down}).
	 */
	public void cutByShutdown() {
		cutByRelay(SHUTTING_DOWN);
	}

	/**
	 * The relay itself ended the exchange, for {@code reason}: {@code relay_shutting_down} ({@link RelayOutcome#SHUTDOWN})
	 * or one of a configuration reload ({@code access_withdrawn}, {@code server_removed}, {@code session_ended}:
	 * {@link RelayOutcome#RELOADED}); recorded as the relay's doing, not the upstream's.
	 */
	public void cutByRelay(String reason) {
		this.outcome = SHUTTING_DOWN.equals(reason) ? RelayOutcome.SHUTDOWN : RelayOutcome.RELOADED;
		this.reason = reason;
	}

	/** The reason of an exchange the relay's shutdown cut. */
	private static final String SHUTTING_DOWN = "relay_shutting_down";

	/**
	 * The reason the relay itself ended the exchange ({@link #cutByRelay}: {@code relay_shutting_down},
	 * {@code server_removed}, ...), or {@code null} when it did not: what a virtual server's exchange takes over from
	 * its member's, so that both lines say the same.
	 */
	public String cutByRelayReason() {
		return outcome == RelayOutcome.SHUTDOWN || outcome == RelayOutcome.RELOADED ? reason : null;
	}

	/**
	 * Whether the relay refused the request because a reload withdrew its caller's access since its admission
	 * ({@link RelayOutcome#CLIENT_ERROR}, reason {@code access_withdrawn}): what a virtual server's exchange takes over
	 * from its member's, whose relay refused it, so that its line says the request was refused, not forwarded.
	 */
	public boolean refusedAsWithdrawn() {
		return outcome == RelayOutcome.CLIENT_ERROR && ACCESS_WITHDRAWN.equals(reason);
	}

	private static final String ACCESS_WITHDRAWN = "access_withdrawn";

	/**
	 * The client closed or reset its connection before the relay decided anything about the request: its own doing,
	 * not a failure ({@link RelayOutcome#CLIENT_ERROR}, reason {@code client_disconnected}). An outcome already
	 * recorded (a stream the client leaves after it was forwarded) is kept.
	 */
	public void clientLeft() {
		if (outcome == null) {
			this.outcome = RelayOutcome.CLIENT_ERROR;
			this.reason = "client_disconnected";
		}
	}

	/** The client was handed {@code count} more bytes of the body. */
	public void countBytes(long count) {
		bytes.addAndGet(count);
	}

	String server() {
		return server;
	}

	/** The server for the log: the configured id, or the one the path named when it names none configured. */
	String loggedServer() {
		String named = namedServer;
		return named != null ? named : server;
	}

	String httpMethodTag() {
		return httpMethod == HttpMethod.POST || httpMethod == HttpMethod.GET || httpMethod == HttpMethod.DELETE
				? httpMethod.name() : "other";
	}

	String clientTag() {
		return caller.metricTag();
	}

	/** The caller's id for the log: an API key's client, a token's client claim; {@code null} when anonymous. */
	String clientId() {
		return caller.id();
	}

	String rpcMethodTag() {
		return RpcMethodTag.of(payload);
	}

	/** The method as sent, for the log: the first message's, or {@code null}. */
	String rpcMethod() {
		JsonRpcPayload body = payload;
		return body == null || body.first() == null ? null : body.first().method();
	}

	/** The first request id, for the log, or {@code null}. */
	JsonNode rpcId() {
		JsonRpcPayload body = payload;
		if (body == null) {
			return null;
		}
		for (JsonRpcMessage message : body.messages()) {
			JsonNode id = message.id();
			if (id != null) {
				return id;
			}
		}
		return null;
	}

	Integer upstreamStatus() {
		return upstreamStatus;
	}

	/**
	 * The status the relay answered with; {@code null} when no response began (the client left first). A virtual
	 * server's message to a member is answered with the member's status.
	 */
	Integer status() {
		Integer answered = status;
		return answered != null || !memberMessage ? answered : upstreamStatus;
	}

	String rule() {
		return rule;
	}

	String statusClassTag() {
		Integer status = upstreamStatus;
		return status == null ? "error" : (status / 100) + "xx";
	}

	RelayOutcome outcome() {
		RelayOutcome current = outcome;
		return current != null ? current : RelayOutcome.FAILED;
	}

	String interceptor() {
		return interceptor;
	}

	String reason() {
		return reason;
	}

	long bytes() {
		return bytes.get();
	}

	long elapsedNanos() {
		return System.nanoTime() - startNanos;
	}

}
