package dev.mcprelay.metrics;

import org.springframework.stereotype.Component;

import dev.mcprelay.api.Caller;

/**
 * Records an exchange that ended, once, whoever observed it: its messages' operations and spans
 * ({@link ExchangeRecord#endTrace}), its meters and its access-log line. For a client's request on an MCP path
 * (on Reactor Netty's route), and for a virtual server's message to one member
 * (DESIGN section 11), counted and logged as a request to that member, tagged with the virtual server.
 */
@Component
public class ExchangeObservations {

	private final RequestMeters meters;

	private final AccessLog accessLog;

	ExchangeObservations(RequestMeters meters, AccessLog accessLog) {
		this.meters = meters;
		this.accessLog = accessLog;
	}

	/**
	 * Records {@code record}, whose exchange ended: its meters and its access-log line.
	 *
	 * @param cancelled whether the exchange ended because its consumer went away
	 */
	public void ended(ExchangeRecord record, Caller caller, boolean cancelled) {
		record.caller(caller);
		if (cancelled) {
			record.clientLeft();
		}
		record.endTrace(cancelled);
		meters.record(record);
		accessLog.write(record);
	}

}
