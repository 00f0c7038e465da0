package dev.mcprelay.proxy;

import org.springframework.stereotype.Component;

import dev.mcprelay.transport.StreamableHttpTransport;
import dev.mcprelay.transport.UpstreamTransport;

/** The transport each configured upstream speaks ({@code mcp-relay.servers.<id>.transport}). */
@Component
public class UpstreamTransports {

	private final StreamableHttpTransport streamableHttp;

	UpstreamTransports(StreamableHttpTransport streamableHttp) {
		this.streamableHttp = streamableHttp;
	}

	public UpstreamTransport of(Upstream upstream) {
		return streamableHttp;
	}

}
