package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.metrics.RelayMeters;
import dev.mcprelay.testsupport.BoundProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * The relay's own messages for a GET stream wait for a client that reads slowly, up to {@link SessionStreams#CAPACITY}
 * groups and {@code sessions.max-held-bytes}; past that they are dropped and counted, never held without bound.
 */
class SessionStreamsTest {

	@Test
	void messagesForASlowStreamAreHeldUpToTheByteBoundThenDroppedAndCounted() {
		RelayProperties properties = BoundProperties.of(Map.of("servers.s.url", "http://127.0.0.1:1/mcp",
				"sessions.max-held-bytes", "16KB"));
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		SessionStreams streams = new SessionStreams(properties, new HeldOverflows(properties, registry));
		List<byte[]> received = new ArrayList<>();
		BaseSubscriber<byte[]> slowClient = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
				// takes nothing until asked to
			}

			@Override
			protected void hookOnNext(byte[] value) {
				received.add(value);
			}

		};
		streams.carry("s", "session-1", Flux.never()).subscribe(slowClient);

		List<Boolean> taken = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			taken.add(streams.send("s", "session-1", List.of(notification(5 * 1024))));
		}

		assertThat(taken).as("three messages of 5KB fit in 16KB, the next do not").containsExactly(true, true, true,
				false, false);
		assertThat(registry.get(RelayMeters.HELD_OVERFLOWS).tag(RelayMeters.SERVER, "s")
			.tag(RelayMeters.QUEUE, "relay_messages").counter().count()).isEqualTo(2);
		slowClient.request(10);
		assertThat(received).as("what was held reaches the client once it reads").hasSize(3);
		assertThat(streams.send("s", "session-1", List.of(notification(5 * 1024)))).as("and makes room again").isTrue();
		slowClient.dispose();
	}

	private static ObjectNode notification(int size) {
		ObjectNode message = JsonNodeFactory.instance.objectNode().put("jsonrpc", "2.0").put("method",
				"notifications/message");
		message.putObject("params").put("level", "info").put("data", "x".repeat(size));
		return message;
	}

}
