package dev.mcprelay.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.session.MasterEvidence.Written;
import dev.mcprelay.session.MasterVerdict.Answer;

/**
 * Review 45k K-1: the one weighing of the Sentinels' verdict against the configuration the store's connections follow.
 * An answer naming another master with a later configuration epoch outweighs the relay's own evidence even from one of
 * three configured Sentinels (a failover whose old master still takes writes); an earlier or equal one does not (45j
 * J-4's stale Sentinel); without epochs on both sides more than half of the configured Sentinels decide; a write refused
 * {@code NOREPLICAS} counts as {@code READONLY} unless the epochs say the verdict is older.
 */
class MasterEvidenceTest {

	private static final long NONE = MasterVerdict.NO_EPOCH;

	@Test
	void aLaterEpochFromOneOfThreeMovesAnEarlierOrEqualOneDoesNot() {
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", 73)), 3), "b:2", 7)).isTrue();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("a:1", 0)), 3), "a:1", 1)).isFalse();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("a:1", 7)), 3), "a:1", 7)).isFalse();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("a:1", 0), new Answer("a:1", 0)), 3),
				"a:1", 1))
			.as("a stale majority against a later configuration followed").isFalse();
	}

	@Test
	void withoutEpochsOnBothSidesMostOfTheConfiguredDecide() {
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", NONE)), 3), "b:2", 7)).isFalse();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", 73)), 3), "b:2", NONE))
			.isFalse();
		assertThat(MasterEvidence.outweighs(
				new MasterVerdict(List.of(new Answer("b:2", NONE), new Answer("b:2", NONE)), 3), "b:2", 7))
			.isTrue();
	}

	@Test
	void aWriteRefusedNoReplicasCountsAsReadOnlyUnlessTheVerdictIsOlder() {
		MasterVerdict stale = new MasterVerdict(List.of(new Answer("a:1", 0)), 3);
		MasterVerdict unknown = new MasterVerdict(List.of(new Answer("b:2", NONE)), 3);
		assertThat(MasterEvidence.refusalMoves(Written.READ_ONLY, stale, "a:1", 1)).isTrue();
		assertThat(MasterEvidence.refusalMoves(Written.NO_REPLICAS, unknown, "b:2", 7)).isTrue();
		assertThat(MasterEvidence.refusalMoves(Written.NO_REPLICAS, stale, "a:1", 1)).isFalse();
		assertThat(MasterEvidence.refusalMoves(Written.TAKEN, unknown, "b:2", 7)).isFalse();
		assertThat(MasterEvidence.refusalMoves(Written.UNKNOWN, unknown, "b:2", 7)).isFalse();
		assertThat(MasterEvidence.noReplicas(new RuntimeException("x",
				new RuntimeException("NOREPLICAS Not enough good replicas to write.")))).isTrue();
	}

	@Test
	void remembersTheLatestEpochOfTheConfigurationTheConnectionsFollow() {
		MasterEvidence evidence = new MasterEvidence("mymaster", null, null, Duration.ofSeconds(2));
		assertThat(evidence.followedEpoch()).isEqualTo(NONE);
		evidence.follows("a:1", new Answer("a:1", NONE));
		assertThat(evidence.followedEpoch()).isEqualTo(NONE);
		evidence.agrees(new Answer("a:1", 7));
		assertThat(evidence.followedEpoch()).as("its first answer with an epoch").isEqualTo(7);
		evidence.follows("b:2", null);
		assertThat(evidence.followedEpoch()).as("moved without an epoch known: the one before, a lower bound")
			.isEqualTo(7);
		evidence.agrees(new Answer("b:2", 9));
		evidence.agrees(new Answer("b:2", 3));
		assertThat(evidence.followedEpoch()).isEqualTo(9);
	}

}
