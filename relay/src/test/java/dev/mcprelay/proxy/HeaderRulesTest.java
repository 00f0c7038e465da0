package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.util.unit.DataSize;

import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.TimeoutProperties;

class HeaderRulesTest {

	private final Upstream upstream = upstream(new HeaderProperties("X-Conf", "v", null, null, false));

	private static Upstream upstream(HeaderProperties header) {
		return new Upstream("s", new ServerProperties("http://up/mcp", null, null,
				List.of(header),
				new TimeoutProperties(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1)), DataSize.ofKilobytes(1),
				new dev.mcprelay.config.ToolsProperties(List.of(), List.of()),
				new dev.mcprelay.config.ArgumentsProperties("_", List.of()), dev.mcprelay.config.RejectedServerRequests.SILENT, null, List.of(), null, List.of()));
	}

	@Test
	void hopByHopAndConnectionListedHeadersStayOnTheirHop() {
		HttpHeaders inbound = new HttpHeaders();
		inbound.add("Connection", "keep-alive, X-Hop");
		inbound.add("X-Hop", "1");
		inbound.add("Keep-Alive", "timeout=5");
		inbound.add("Transfer-Encoding", "chunked");
		inbound.add("TE", "trailers");
		inbound.add("Upgrade", "h2c");
		inbound.add("Proxy-Authorization", "Basic secret");
		inbound.add("Content-Length", "12");
		inbound.add("Host", "relay");
		inbound.add("X-Kept", "1");

		HttpHeaders out = HeaderRules.upstreamRequestHeaders(inbound, dev.mcprelay.api.Caller.ANONYMOUS, upstream, true);

		assertThat(out.headerNames()).containsExactlyInAnyOrder("X-Kept", "X-Conf", "Content-Type");
	}

	@Test
	void headersTheRelayPromisesToPassPassEvenWhenConnectionListsThem() {
		HttpHeaders inbound = new HttpHeaders();
		inbound.add("Connection", "Mcp-Session-Id, MCP-Protocol-Version, last-event-id, Accept, Content-Type, X-Hop");
		inbound.add("Mcp-Session-Id", "s-1");
		inbound.add("MCP-Protocol-Version", "2025-11-25");
		inbound.add("Last-Event-ID", "e-7");
		inbound.add("Accept", "application/json, text/event-stream");
		inbound.add("Content-Type", "application/json");
		inbound.add("X-Hop", "1");

		HttpHeaders out = HeaderRules.upstreamRequestHeaders(inbound, dev.mcprelay.api.Caller.ANONYMOUS, upstream, true);

		assertThat(out.headerNames()).as("a client's Connection list drops only what the relay does not promise to pass")
			.containsExactlyInAnyOrder("Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID", "Accept",
					"Content-Type", "X-Conf");
		assertThat(out.getFirst("Mcp-Session-Id")).isEqualTo("s-1");

		HttpHeaders upstreamHeaders = new HttpHeaders();
		upstreamHeaders.add("Connection", "keep-alive, Mcp-Session-Id, X-Hop");
		upstreamHeaders.add("Mcp-Session-Id", "s-2");
		upstreamHeaders.add("X-Hop", "1");
		HttpHeaders relayed = new HttpHeaders();
		HeaderRules.copyResponseHeaders(upstreamHeaders, relayed, false);
		assertThat(relayed.headerNames()).as("the session id always comes back to the client")
			.containsExactly("Mcp-Session-Id");
	}

	@Test
	void aClientsForwardingHeadersGoUpstreamOnlyWhereTheServerConfiguresOne() {
		HttpHeaders inbound = new HttpHeaders();
		inbound.add("X-Forwarded-For", "203.0.113.9");
		inbound.add("X-Forwarded-Proto", "https");
		inbound.add("Forwarded", "for=203.0.113.9");

		assertThat(HeaderRules.upstreamRequestHeaders(inbound, dev.mcprelay.api.Caller.ANONYMOUS, upstream, false)
			.headerNames()).containsExactly("X-Conf");
		Upstream passing = upstream(new HeaderProperties("X-Forwarded-For", null, "X-Forwarded-For", null, false));
		HttpHeaders out = HeaderRules.upstreamRequestHeaders(inbound, dev.mcprelay.api.Caller.ANONYMOUS, passing, false);
		assertThat(out.headerNames()).containsExactly("X-Forwarded-For");
		assertThat(out.getFirst("X-Forwarded-For")).isEqualTo("203.0.113.9");
	}

	@Test
	void responseHopByHopHeadersCookiesAndTheUpstreamsChallengeAreDropped() {
		HttpHeaders upstreamHeaders = new HttpHeaders();
		upstreamHeaders.add("WWW-Authenticate", "Bearer resource_metadata=\"https://upstream.example/.well-known/x\"");
		upstreamHeaders.add("Connection", "close, X-Hop");
		upstreamHeaders.add("X-Hop", "1");
		upstreamHeaders.add("Transfer-Encoding", "chunked");
		upstreamHeaders.add("Set-Cookie", "a=b");
		upstreamHeaders.add("Content-Length", "10");
		upstreamHeaders.add("Mcp-Session-Id", "s");
		upstreamHeaders.add("Content-Type", "text/event-stream");

		HttpHeaders streamed = new HttpHeaders();
		HeaderRules.copyResponseHeaders(upstreamHeaders, streamed, false);
		assertThat(streamed.headerNames()).containsExactlyInAnyOrder("Mcp-Session-Id", "Content-Type");

		HttpHeaders untouched = new HttpHeaders();
		HeaderRules.copyResponseHeaders(upstreamHeaders, untouched, true);
		assertThat(untouched.headerNames()).as("an untouched body keeps its length")
			.containsExactlyInAnyOrder("Mcp-Session-Id", "Content-Type", "Content-Length");
	}


	@Test
	void theUpstreamsHeadersGoStraightOnTheClientsResponseReplacingWhatItHadUnderTheirNames() {
		io.netty.handler.codec.http.HttpHeaders upstreamHeaders = new io.netty.handler.codec.http.DefaultHttpHeaders();
		upstreamHeaders.add("Content-Type", "text/event-stream");
		upstreamHeaders.add("Content-Type", "application/json");
		upstreamHeaders.add("Link", "<a>; rel=a");
		upstreamHeaders.add("Link", "<b>; rel=b");
		upstreamHeaders.add("Connection", "close, X-Hop");
		upstreamHeaders.add("X-Hop", "1");
		upstreamHeaders.add("Set-Cookie", "a=b");
		upstreamHeaders.add("Content-Length", "10");
		io.netty.handler.codec.http.HttpHeaders client = new io.netty.handler.codec.http.DefaultHttpHeaders();
		client.add("X-Request-Id", "r-1");
		client.add("Content-Type", "application/json");
		client.add("Link", "<old>");
		client.add("X-Hop", "the relay's own");

		HeaderRules.putRelayedResponseHeaders(upstreamHeaders, false, client);

		assertThat(client.getAll("Content-Type")).as("replaced by the upstream's first line, the one the relay read")
			.containsExactly("text/event-stream");
		assertThat(client.getAll("Link")).as("repeated lines stay repeated").containsExactly("<a>; rel=a", "<b>; rel=b");
		assertThat(client.get("X-Request-Id")).as("what the relay set stays").isEqualTo("r-1");
		assertThat(client.get("X-Hop")).as("a header that does not cross leaves the client's as it was")
			.isEqualTo("the relay's own");
		assertThat(client.contains("Set-Cookie")).isFalse();
		assertThat(client.contains("Content-Length")).as("a body not relayed as received loses its length").isFalse();

		HeaderRules.putRelayedResponseHeaders(upstreamHeaders, true, client);
		assertThat(client.get("Content-Length")).as("an untouched body keeps its length").isEqualTo("10");
		assertThat(client.getAll("Link")).as("put again, still the upstream's lines only")
			.containsExactly("<a>; rel=a", "<b>; rel=b");
	}

}
