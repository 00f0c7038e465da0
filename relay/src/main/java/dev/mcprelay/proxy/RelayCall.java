package dev.mcprelay.proxy;

import org.springframework.http.HttpMethod;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.http.RelayExchange;
import dev.mcprelay.intercept.InboundPlan;
import dev.mcprelay.intercept.PendingRequests;
import dev.mcprelay.tracing.ExchangeTrace;

/**
 * One client request on its way through the relay.
 *
 * @param upstream where it goes
 * @param method POST, GET or DELETE
 * @param exchange the client's exchange
 * @param context what interceptors see of the client request
 * @param plan what the request stages decided about a POST body; {@code null} for GET and DELETE
 * @param order its place among the requests of its session on their way upstream
 * @param trace its telemetry in MCP's terms; {@link ExchangeTrace#NONE} for GET and DELETE
 */
public record RelayCall(Upstream upstream, HttpMethod method, RelayExchange exchange, CallContext context,
		InboundPlan plan, SessionOrder.Ticket order, ExchangeTrace trace) {

	public boolean isPost() {
		return HttpMethod.POST.equals(method);
	}

	/** The forwarded requests still waiting for an answer; none for GET and DELETE. */
	public PendingRequests pending() {
		return plan == null ? PendingRequests.none() : plan.pending();
	}

}
