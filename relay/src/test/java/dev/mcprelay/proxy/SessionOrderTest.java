package dev.mcprelay.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

/** The order of one session's requests on their way upstream, without the relay around it. */
class SessionOrderTest {

	private final SessionOrder order = new SessionOrder();

	private final List<String> went = new CopyOnWriteArrayList<>();

	@Test
	void aLaterRequestWaitsUntilTheEarlierOneIsDelivered() {
		SessionOrder.Ticket first = order.enter("s", "session-1", false);
		SessionOrder.Ticket second = order.enter("s", "session-1", false);
		second.turn().subscribe(null, null, () -> went.add("second"));
		first.turn().subscribe(null, null, () -> went.add("first"));

		assertThat(went).as("the first request goes at once; the second waits for it").containsExactly("first");
		first.release();
		assertThat(went).as("the second goes once the first is delivered").containsExactly("first", "second");
		second.release();
		assertThat(order.sessionsTracked()).as("nothing is kept once the session has nothing in flight").isZero();
	}

	@Test
	void aRequestThatEndsEarlyNeverLetsTheOneBehindItOvertakeTheOneAheadOfIt() {
		SessionOrder.Ticket get = order.enter("s", "session-1", true);
		SessionOrder.Ticket refused = order.enter("s", "session-1", false);
		SessionOrder.Ticket call = order.enter("s", "session-1", false);
		call.turn().subscribe(null, null, () -> went.add("call"));

		refused.release();
		assertThat(went).as("the request behind a refused one still waits for the GET ahead of both").isEmpty();
		get.release();
		assertThat(went).containsExactly("call");
	}

	@Test
	void sessionsAndServersAreOrderedIndependently() {
		order.enter("s", "session-1", false);
		SessionOrder.Ticket otherSession = order.enter("s", "session-2", false);
		SessionOrder.Ticket otherServer = order.enter("t", "session-1", false);
		SessionOrder.Ticket noSession = order.enter("s", null, false);

		otherSession.turn().subscribe(null, null, () -> went.add("other session"));
		otherServer.turn().subscribe(null, null, () -> went.add("other server"));
		noSession.turn().subscribe(null, null, () -> went.add("no session"));

		assertThat(went).containsExactly("other session", "other server", "no session");
	}

	@Test
	void afterInitializedTheNextRequestLetsTheGetStreamGoFirst() {
		order.expectStream("s", "session-1");
		SessionOrder.Ticket call = order.enter("s", "session-1", false);
		call.turn().subscribe(null, null, () -> went.add("call"));
		assertThat(went).as("a call right after initialized waits for the client's GET").isEmpty();

		SessionOrder.Ticket get = order.enter("s", "session-1", true);
		get.turn().subscribe(null, null, () -> went.add("get"));
		assertThat(went).as("the GET goes first, though it arrived second").containsExactly("get");

		get.release();
		assertThat(went).as("the call goes once the GET stream is open upstream").containsExactly("get", "call");
	}

	@Test
	void aClientThatNeverOpensAGetGoesOnceTheGraceHasPassed() {
		order.expectStream("s", "session-1");
		SessionOrder.Ticket call = order.enter("s", "session-1", false);
		call.turn().subscribe(null, null, () -> went.add("call"));
		assertThat(went).as("the call waits for a GET first").isEmpty();

		call.turn().block(Duration.ofSeconds(5));
		assertThat(went).as("with no GET, the grace ends the wait").containsExactly("call");
		call.release();
		assertThat(order.sessionsTracked()).as("the expectation is gone once its grace has passed").isZero();

		SessionOrder.Ticket next = order.enter("s", "session-1", false);
		next.turn().subscribe(null, null, () -> went.add("next"));
		assertThat(went).as("the client pays the wait once").containsExactly("call", "next");
	}

	@Test
	void theGraceCountsFromTheRequestNotFromInitialized() throws InterruptedException {
		order.expectStream("s", "session-1");
		Thread.sleep(SessionOrder.STREAM_OPEN_GRACE.toMillis() + 200); // a slow client: its GET and call come later
		SessionOrder.Ticket call = order.enter("s", "session-1", false);
		call.turn().subscribe(null, null, () -> went.add("call"));
		SessionOrder.Ticket get = order.enter("s", "session-1", true);
		get.turn().subscribe(null, null, () -> went.add("get"));

		assertThat(went).as("the GET still goes first").containsExactly("get");
		get.release();
		assertThat(went).containsExactly("get", "call");
	}

	@Test
	void aRequestReleasedBeforeItsTurnCameLeavesNothingBehind() {
		order.expectStream("s", "session-1");
		SessionOrder.Ticket cancelled = order.enter("s", "session-1", false);
		cancelled.release();
		SessionOrder.Ticket get = order.enter("s", "session-1", true);
		get.turn().subscribe(null, null, () -> went.add("get"));
		get.release();

		assertThat(went).containsExactly("get");
		assertThat(cancelled.turn().block(Duration.ofSeconds(1))).as("its turn completes, empty").isNull();
		assertThat(order.sessionsTracked()).isZero();
	}

}
