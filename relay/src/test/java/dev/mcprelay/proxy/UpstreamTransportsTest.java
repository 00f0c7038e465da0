package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.testsupport.BoundProperties;
import dev.mcprelay.transport.UpstreamRequest;
import dev.mcprelay.transport.UpstreamTransportException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Which transport a request's upstream speaks is decided by the upstream of the request's own snapshot: a legacy SSE
 * server's request that reaches the relay's forwarding after a reload closed its bridge (a slow body, a request queued
 * behind its session's earlier ones) is never sent as Streamable HTTP.
 */
class UpstreamTransportsTest {

	@Test
	void aLegacyServersRequestWhoseBridgeAReloadClosedEndsAsItsSessionDidAndIsNeverSentAsStreamableHttp() {
		dev.mcprelay.config.RelayProperties properties = BoundProperties.of(Map.of("servers.legacy.url",
				"http://127.0.0.1:1/sse", "servers.legacy.transport", "sse"));
		ServerProperties legacy = properties.servers().get("legacy");
		// no bridge for this Upstream: the snapshot that had it was replaced (the bridge closed and let go)
		UpstreamTransports transports = new UpstreamTransports(null, null, null, new SimpleMeterRegistry(), null, null,
				null, properties, null, null, null);
		Upstream retired = new Upstream("legacy", legacy);
		UpstreamRequest request = new UpstreamRequest("legacy", HttpMethod.POST, retired.uri(), new HttpHeaders(),
				"{}".getBytes(), "-", null);

		StepVerifier.create(Mono.defer(() -> transports.of(retired).exchange(request, response -> Mono.empty())))
			.expectErrorSatisfies(error -> {
				assertThat(error).isInstanceOf(UpstreamTransportException.class)
					.hasMessageContaining("a configuration reload changed or removed the server");
				assertThat(((UpstreamTransportException) error).kind())
					.isEqualTo(UpstreamTransportException.Kind.UNKNOWN_SESSION);
			})
			.verify();
	}

}
