package dev.mcprelay.virtual;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.mcprelay.LogText;
import dev.mcprelay.metrics.RelayMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Two members of a virtual server that publish one name after prefixing: the member first in configuration order
 * keeps it, the other's item is left out of the merged list. Each clash is counted
 * ({@value RelayMeters#VIRTUAL_NAME_CLASHES}, tagged with the virtual server and the member left out) and logged once
 * per virtual server, member and name, the name quoted ({@link LogText#quote}: a server chose it, and a line break in
 * it must not forge a log line, review 43j N-6).
 */
@Component
class NameClashes {

	private static final Logger log = LoggerFactory.getLogger(NameClashes.class);

	/** Clashes remembered as logged at most; past it a clash may be logged again. */
	private static final int REMEMBERED = 10_000;

	private final MeterRegistry registry;

	private final Set<String> logged = ConcurrentHashMap.newKeySet();

	NameClashes(MeterRegistry registry) {
		this.registry = registry;
	}

	/** {@code loser}'s {@code kind} (tool, prompt, ...) {@code name} was left out: {@code winner} has it. */
	void report(String virtualId, String kind, String name, String winner, String loser) {
		Counter.builder(RelayMeters.VIRTUAL_NAME_CLASHES)
			.description("Tools, prompts and resources of a virtual server's member left out: an earlier member has the name")
			.tag(RelayMeters.VIRTUAL_SERVER, virtualId)
			.tag(RelayMeters.SERVER, loser)
			.register(registry)
			.increment();
		if (logged.size() < REMEMBERED && logged.add(virtualId + "\n" + kind + "\n" + name + "\n" + loser)) {
			log.warn("Virtual server '{}': {} {} of member '{}' is left out: member '{}', earlier in members, has the "
					+ "same name; give one of them a prefix", virtualId, kind, LogText.quote(name), loser, winner);
		}
	}

}
