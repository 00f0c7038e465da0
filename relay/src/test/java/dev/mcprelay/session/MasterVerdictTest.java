package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.session.MasterVerdict.Answer;

/**
 * Review 45i I-4: the master the Sentinels name, their answers weighed: the latest configuration epoch wins over a
 * stale Sentinel, whatever the order; without epochs (a user refused {@code SENTINEL MASTER}) the majority does, and a
 * tie decides nothing.
 */
class MasterVerdictTest {

	@Test
	void theLatestConfigurationEpochOutweighsAStaleSentinel() {
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", 0), new Answer("b:2", 3), new Answer("b:2", 3))))
			.contains("b:2");
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", 0), new Answer("b:2", 3)))).contains("b:2");
		assertThat(MasterVerdict.of(List.of(new Answer("b:2", 1), new Answer("a:1", 4)))).contains("a:1");
	}

	@Test
	void withoutEpochsMostOfTheAnswersDecideAndATieDoesNot() {
		long none = MasterVerdict.NO_EPOCH;
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", none), new Answer("b:2", none), new Answer("b:2", none))))
			.contains("b:2");
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", none), new Answer("b:2", none)))).isEmpty();
		assertThat(MasterVerdict.of(List.of())).isEmpty();
	}

	@Test
	void readsSentinelMastersAnswer() {
		assertThat(MasterVerdict.answer(Map.of("ip", "127.0.0.1", "port", "6380", "config-epoch", "7")))
			.isEqualTo(new Answer("127.0.0.1:6380", 7));
	}

}
