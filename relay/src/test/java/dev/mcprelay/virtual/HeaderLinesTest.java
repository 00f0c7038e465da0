package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.proxy.HeaderNameSet;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The header lines a virtual server passes on are copied line by line where that is exact (no name on two lines),
 * skipping the names it sets itself whatever their case; headers that repeat a name are left to the name-by-name copy.
 */
class HeaderLinesTest {

	private static final HeaderNameSet SKIPPED = HeaderNameSet.of(List.of("Mcp-Session-Id", "Content-Length"));

	@Test
	void eachLineIsCopiedButTheSkippedNamesWhateverTheirCase() {
		HttpHeaders from = new DefaultHttpHeaders().add("content-type", "application/json")
			.add("mcp-session-id", "member's")
			.add("X-Trace", "abc")
			.add("CONTENT-LENGTH", "12");
		HttpHeaders to = new DefaultHttpHeaders().add("X-Trace", "the client's own").add("Mcp-Session-Id", "virtual");

		assertThat(HeaderLines.copyEach(from, SKIPPED, to, false)).isTrue();

		assertThat(to.getAll("X-Trace")).as("set: what the target held under the name is replaced").containsExactly("abc");
		assertThat(to.get("Content-Type")).isEqualTo("application/json");
		assertThat(to.getAll("Mcp-Session-Id")).as("skipped, whatever its case").containsExactly("virtual");
		assertThat(to.contains("Content-Length")).isFalse();
	}

	@Test
	void addedLinesJoinWhatTheTargetHolds() {
		HttpHeaders to = new DefaultHttpHeaders().add("X-Trace", "first");

		assertThat(HeaderLines.copyEach(new DefaultHttpHeaders().add("x-trace", "second"), SKIPPED, to, true)).isTrue();

		assertThat(to.getAll("X-Trace")).containsExactly("first", "second");
	}

	@Test
	void headersThatRepeatANameAreNotCopiedLineByLine() {
		HttpHeaders from = new DefaultHttpHeaders().add("Vary", "Accept").add("X-Trace", "abc").add("vary", "Origin");
		HttpHeaders to = new DefaultHttpHeaders();

		assertThat(HeaderLines.repeatsAName(from)).as("names compared without case").isTrue();
		assertThat(HeaderLines.copyEach(from, SKIPPED, to, false)).isFalse();
		assertThat(to.isEmpty()).as("nothing copied: the caller copies name by name").isTrue();
		assertThat(HeaderLines.repeatsAName(new DefaultHttpHeaders().add("Vary", "Accept").add("X-Vary", "x"))).isFalse();
		assertThat(HeaderLines.repeatsAName(new DefaultHttpHeaders())).isFalse();
	}

}
