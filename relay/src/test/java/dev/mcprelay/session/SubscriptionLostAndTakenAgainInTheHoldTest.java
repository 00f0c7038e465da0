package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Tag;

/**
 * {@link SubscriptionLostInTheHoldTest} where only the relays' open connections to the first Sentinel go silent (a NAT
 * or load balancer that forgot them), so that, once the relays notice the silence (an unanswered {@code PING}), they
 * subscribe to it again through a new connection, still within the hold: the relays ask the Sentinels then, and move
 * to the new master before the hold's 10 s. Same assertions, and each hold ended before
 * {@link SentinelMasterSwitches#MAX_HOLD}. In the longer tier ({@code -Pscale}).
 */
@Tag("scale")
class SubscriptionLostAndTakenAgainInTheHoldTest extends SubscriptionLostInTheHoldTest {

	@Override
	boolean newConnectionsSilencedToo() {
		return false;
	}

	@Override
	void afterFailover(List<Long> held) {
		assertThat(held).as("each relay caught up when it followed the Sentinel again, before the hold's bound")
			.allMatch(millis -> millis < SentinelMasterSwitches.MAX_HOLD.toMillis());
	}

}
