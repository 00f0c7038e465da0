package dev.mcprelay.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A request target split once into the raw path the routing decision reads and the raw query, nothing decoded. */
class RequestTargetTest {

	@Test
	void originFormSplitsAtTheFirstQuestionMarkAndKeepsEscapes() {
		assertThat(RequestTarget.of("/mcp/a%2Fb?x=%20&y")).as("nothing is decoded")
			.isEqualTo(new RequestTarget("/mcp/a%2Fb", "x=%20&y"));
		assertThat(RequestTarget.of("/mcp/acme")).isEqualTo(new RequestTarget("/mcp/acme", null));
		assertThat(RequestTarget.of("/mcp?")).as("an empty query is a query").isEqualTo(new RequestTarget("/mcp", ""));
	}

	@Test
	void absoluteFormGivesItsPath() {
		assertThat(RequestTarget.of("http://relay.example/mcp/acme?x=1"))
			.isEqualTo(new RequestTarget("/mcp/acme", "x=1"));
		assertThat(RequestTarget.of("http://relay.example")).as("no path is the root")
			.isEqualTo(new RequestTarget("/", null));
	}

	@Test
	void aTargetThatIsNoUriIsAPathNoRouteTakes() {
		assertThat(RequestTarget.of("*").rawPath()).doesNotStartWith("/");
		assertThat(RequestTarget.of("mcp acme").rawPath()).doesNotStartWith("/");
	}

}
