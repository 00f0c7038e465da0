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

	/**
	 * Review 45j J-6: one stale Sentinel whose user may run {@code SENTINEL MASTER} (epoch 0) outvoted three up-to-date
	 * ones whose user may not: epochs decide only when most answers carry one.
	 */
	@Test
	void anEpochDoesNotOutvoteMostAnswersWithoutOne() {
		long none = MasterVerdict.NO_EPOCH;
		assertThat(MasterVerdict.of(List.of(new Answer("b:2", none), new Answer("b:2", none), new Answer("b:2", none),
				new Answer("a:1", 0)))).contains("b:2");
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", 0), new Answer("b:2", none)))).isEmpty();
		assertThat(MasterVerdict.of(List.of(new Answer("a:1", 0), new Answer("b:2", 3), new Answer("a:1", none))))
			.contains("b:2");
	}

	/**
	 * Review 45j J-4: one answer of four configured Sentinels is its own majority but not the configured Sentinels'; J-1:
	 * a split that decides nothing says what each side names.
	 */
	@Test
	void tellsWhetherMostOfTheConfiguredSentinelsNameItAndWhatASplitNames() {
		MasterVerdict alone = new MasterVerdict(List.of(new Answer("a:1", 0)), 4);
		assertThat(alone.master()).contains("a:1");
		assertThat(alone.heldByMostOfTheConfigured("a:1")).isFalse();
		assertThat(new MasterVerdict(List.of(new Answer("b:2", 5), new Answer("b:2", 5), new Answer("b:2", 5)), 4)
			.heldByMostOfTheConfigured("b:2")).isTrue();
		assertThat(new MasterVerdict(List.of(new Answer("b:2", 5), new Answer("b:2", 5)), 4)
			.heldByMostOfTheConfigured("b:2")).isFalse();

		long none = MasterVerdict.NO_EPOCH;
		MasterVerdict split = new MasterVerdict(List.of(new Answer("b:2", none), new Answer("a:1", none)), 4);
		assertThat(split.master()).isEmpty();
		assertThat(split.disagreement()).contains("a:1 (1) vs b:2 (1)");
		assertThat(alone.disagreement()).isEmpty();
		assertThat(new MasterVerdict(List.of(), 4).disagreement()).isEmpty();
	}

	@Test
	void readsSentinelMastersAnswer() {
		assertThat(MasterVerdict.answer(Map.of("ip", "127.0.0.1", "port", "6380", "config-epoch", "7")))
			.isEqualTo(new Answer("127.0.0.1:6380", 7));
	}


	/**
	 * Review 45l L-1/L-2: a later epoch from one Sentinel does not outvote more than half of the configured Sentinels
	 * that agree (a foreign or stale Sentinel's epoch 80 against three of ours at 5).
	 */
	@Test
	void anEpochDoesNotOutvoteMostOfTheConfigured() {
		assertThat(new MasterVerdict(List.of(new Answer("a:1", 5), new Answer("a:1", 5), new Answer("a:1", 5),
				new Answer("f:9", 80)), 4).master()).contains("a:1");
		assertThat(new MasterVerdict(List.of(new Answer("a:1", 5), new Answer("f:9", 80)), 4).master())
			.as("one of four each: the epochs decide").contains("f:9");
	}

}
