package dev.mcprelay.virtual;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A member that could not serve a virtual server's message: counted ({@value RelayMeters#VIRTUAL_MEMBER_UNAVAILABLE},
 * by virtual server and member), logged, and told to the client as a {@code notifications/message} at level
 * {@code warning} naming the member.
 */
@Component
class MemberAvailability {

	private static final Logger log = LoggerFactory.getLogger(MemberAvailability.class);

	private final MeterRegistry registry;

	MemberAvailability(MeterRegistry registry) {
		this.registry = registry;
	}

	/** Counts and logs {@code failure}; returns the warning for the client. */
	ObjectNode unavailable(String virtualId, MemberUnavailable failure) {
		Counter.builder(RelayMeters.VIRTUAL_MEMBER_UNAVAILABLE)
			.description("Members of a virtual server that could not serve a message (down, slow, refused)")
			.tag(RelayMeters.VIRTUAL_SERVER, virtualId)
			.tag(RelayMeters.SERVER, failure.member())
			.register(registry)
			.increment();
		log.warn("Virtual server '{}': {}", virtualId, failure.getMessage());
		ObjectNode warning = JsonRpcParser.mapper().createObjectNode();
		warning.put("jsonrpc", "2.0");
		warning.put("method", "notifications/message");
		ObjectNode params = warning.putObject("params");
		params.put("level", "warning");
		params.put("logger", "mcp-relay");
		params.put("data", failure.getMessage() + " Its tools, prompts and resources are left out until it answers again.");
		return warning;
	}

}
