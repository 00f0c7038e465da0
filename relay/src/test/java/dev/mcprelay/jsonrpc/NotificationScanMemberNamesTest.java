package dev.mcprelay.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

/**
 * The scan of an upstream's events keeps none of their member names: it read them with a Jackson factory of its own,
 * whose table kept up to 6,000 names of any length past the scan (a relay with a server whose events held 900 names of
 * 50,000 characters: heap after collection 23, 113, 205 MB, then OutOfMemoryError). It now reads them with the relay's
 * one factory ({@code BoundedNamesJsonFactory}), which keeps no large event's names.
 */
class NotificationScanMemberNamesTest {

	private static final int ROUNDS = 4;

	@Test
	void theHeapAfterCollectionStaysFlatOverEventsOfManyLongNames() {
		byte[] warm = JsonRpcLongNamesCostTest.notification(5);
		assertThat(NotificationScan.isPlainNotification(warm, 0, warm.length)).isTrue();
		long before = heapAfterCollection();
		for (int round = 0; round < ROUNDS; round++) {
			// each event's names are new: "<round>-<i>xxx..."
			byte[] event = JsonRpcLongNamesCostTest.notification(200, round + "-");
			assertThat(NotificationScan.isPlainNotification(event, 0, event.length)).isTrue();
			String text = new String(JsonRpcLongNamesCostTest.notification(200, round + "+"),
					java.nio.charset.StandardCharsets.UTF_8);
			assertThat(NotificationScan.isPlainNotification(text)).isTrue();
		}
		long grown = heapAfterCollection() - before;
		System.out.println("heap after collection grew by " + grown + " bytes over " + ROUNDS + " rounds of two events"
				+ " of 200 names of " + JsonRpcLongNamesCostTest.NAME + " characters");
		assertThat(grown).as("heap after collection, grown over %d rounds of names the events held (%d MB of them)",
				ROUNDS, ROUNDS * 2 * 200 * JsonRpcLongNamesCostTest.NAME / 1_000_000)
			.isLessThan(2_000_000);
	}

	private static long heapAfterCollection() {
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			System.gc();
			used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
