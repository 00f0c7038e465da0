package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Each caller's sessions, oldest first: past the limit the caller's own oldest go, and nothing is kept for nobody. */
class CallerQuotaTest {

	@Test
	void pastTheLimitTheCallersOwnOldestGo() {
		CallerQuota<String> quota = new CallerQuota<>(2);

		assertThat(quota.admit("alice", "a1")).isEmpty();
		assertThat(quota.admit("bob", "b1")).isEmpty();
		assertThat(quota.admit("alice", "a2")).isEmpty();
		assertThat(quota.admit("alice", "a3")).containsExactly("a1");
		assertThat(quota.held("bob")).isEqualTo(1);
		quota.forget("alice", "a2");
		assertThat(quota.admit("alice", "a4")).as("a forgotten session no longer counts").isEmpty();
		quota.forget("alice", "a3");
		quota.forget("alice", "a4");
		quota.forget("bob", "b1");
		assertThat(quota.callers()).as("nothing is kept for a caller without sessions").isZero();
		assertThat(quota.admit(null, "x")).as("anonymous callers are not counted").isEmpty();
		assertThatThrownBy(() -> new CallerQuota<String>(0)).isInstanceOf(IllegalArgumentException.class);
	}

}
