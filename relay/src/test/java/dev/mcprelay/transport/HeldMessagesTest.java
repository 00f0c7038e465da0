package dev.mcprelay.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A queue's bound by count and by bytes, and the one message larger than the byte bound that passes alone. */
class HeldMessagesTest {

	@Test
	void holdsUpToTheCountAndTheBytesAndTakesRoomBackAsMessagesAreTaken() {
		HeldMessages held = new HeldMessages(3, 100);

		assertThat(held.hold(40)).isTrue();
		assertThat(held.hold(40)).isTrue();
		assertThat(held.hold(40)).as("120 bytes would pass the 100-byte bound").isFalse();
		assertThat(held.hold(20)).as("exactly the byte bound").isTrue();
		assertThat(held.hold(0)).as("the count bound, even for an empty message").isFalse();
		assertThat(held.messages()).isEqualTo(3);
		assertThat(held.bytes()).isEqualTo(100);

		held.release(40);
		assertThat(held.hold(40)).as("room given back is room again").isTrue();
	}

	@Test
	void aMessageLargerThanTheByteBoundPassesWhenNothingElseIsHeld() {
		HeldMessages held = new HeldMessages(10, 100);

		assertThat(held.hold(500)).as("alone, or it could never pass").isTrue();
		assertThat(held.hold(1)).as("but nothing joins it").isFalse();
		held.release(500);
		assertThat(held.isEmpty()).isTrue();
		assertThat(held.hold(1)).isTrue();
		assertThat(held.hold(500)).as("not when something else is held").isFalse();
	}

}
