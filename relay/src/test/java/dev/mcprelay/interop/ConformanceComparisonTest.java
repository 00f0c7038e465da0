package dev.mcprelay.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.interop.ConformanceSuite.Scenario;

/**
 * How {@link ConformanceSuiteInteropTest} counts a scenario run twice: a check the relay failed in either run is a
 * difference unless the fixture failed it directly in either run; a check the fixture failed directly is one the relay
 * must fail too only when the fixture failed it in both runs. A flaky relay difference is never forgiven by a second
 * run that passed.
 */
class ConformanceComparisonTest {

	private static Scenario passing() {
		return new Scenario("s", Map.of("c", "SUCCESS"), Map.of());
	}

	private static Scenario failing() {
		return new Scenario("s", Map.of("c", "FAILURE"), Map.of("c", "timed out"));
	}

	@Test
	void aCheckTheRelayFailedOnceAndTheFixtureNeverIsADifference() {
		Scenario relay = failing().failingInEither(passing());
		Scenario direct = passing();
		assertThat(relay.differencesFrom(direct.failingInEither(passing()), direct.failingInBoth(passing())))
			.containsOnlyKeys("c");
	}

	@Test
	void aCheckTheFixtureFailedDirectlyInOneRunIsForgiven() {
		Scenario relay = failing().failingInEither(passing());
		Scenario direct = passing();
		assertThat(relay.differencesFrom(direct.failingInEither(failing()), direct.failingInBoth(failing()))).isEmpty();
		assertThat(passing().differencesFrom(failing().failingInEither(passing()), failing().failingInBoth(passing())))
			.as("the relay passing a check the fixture failed once").isEmpty();
	}

	@Test
	void aCheckTheFixtureFailedInBothRunsMustFailThroughTheRelayToo() {
		Scenario relay = passing().failingInEither(passing());
		assertThat(relay.differencesFrom(failing().failingInEither(failing()), failing().failingInBoth(failing())))
			.containsOnlyKeys("c");
	}

}
