package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The warning a client reads about a member ends its sentence once, whatever the member's own message ends with. */
class MemberUnavailableTest {

	@Test
	void aMembersMessageEndingInAPeriodEndsTheWarningOnce() {
		assertThat(new MemberUnavailable("jira", "refused initialize: MCP server 'jira' could not be reached: refused.")
			.getMessage()).isEqualTo("Member 'jira' is unavailable: it refused initialize: MCP server 'jira' could not be "
					+ "reached: refused.");
		assertThat(new MemberUnavailable("jira", "could not be reached").getMessage())
			.isEqualTo("Member 'jira' is unavailable: it could not be reached.");
	}

}
