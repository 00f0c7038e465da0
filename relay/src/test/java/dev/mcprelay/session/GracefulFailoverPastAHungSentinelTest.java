package dev.mcprelay.session;

import org.junit.jupiter.api.Tag;

/**
 * {@link GracefulFailoverOverSentinelTest} with the first Sentinel of {@code nodes} hung (SIGSTOP: it accepts
 * connections and answers nothing) from just before the failover: the one a new connection, and the relay's question
 * after {@code +switch-master}, ask first. With Lettuce's 60 s command timeout through Sentinel the hold ended at its
 * 10 s bound on the old master, sessions confirmed then were lost with its demotion, and the store stayed unusable
 * for a minute; the relay now leaves a Sentinel that does not answer within 2 s for the next one. Same assertions: no
 * session answered 200 is lost, every other answer is 503 {@code session_store_unavailable}. In the longer tier
 * ({@code -Pscale}).
 */
@Tag("scale")
class GracefulFailoverPastAHungSentinelTest extends GracefulFailoverOverSentinelTest {

	@Override
	void beforeFailover() throws Exception {
		sentinel.freezeSentinel(0);
	}

}
