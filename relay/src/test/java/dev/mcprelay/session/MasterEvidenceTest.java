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
	}

	/**
	 * Review 45l L-2: after the Sentinels were redeployed with fresh state (epochs from 0 again), 3 of 3 naming another
	 * master did not move a relay that remembered a higher epoch: more than half of the configured Sentinels decide
	 * whatever the epochs; a minority with an earlier one still does not.
	 */
	@Test
	void mostOfTheConfiguredMoveWhateverTheEpochs() {
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", 1), new Answer("b:2", 1),
				new Answer("b:2", 1)), 3), "b:2", 2)).as("3 of 3 after a redeploy").isTrue();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", 0), new Answer("b:2", 0)), 3),
				"b:2", 5)).as("2 of 3").isTrue();
		assertThat(MasterEvidence.outweighs(new MasterVerdict(List.of(new Answer("b:2", 0), new Answer("b:2", 0)), 4),
				"b:2", 5)).as("2 of 4, earlier epoch").isFalse();
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

	/**
	 * Review 45l L-0/L-2: the epoch remembered is that of the configuration followed now. After two announced switches
	 * (a:1 -> b:2 at 11 -> a:1 at 12) a Sentinel that missed the last names b:2 with 11: below the one remembered, it
	 * does not move the relay (it used to remember the epoch of a catch-up before both, and moved). After the Sentinels
	 * were redeployed the epoch may go down.
	 */
	@Test
	void remembersTheEpochOfTheConfigurationFollowedNow() {
		MasterEvidence evidence = new MasterEvidence("mymaster", null, null, Duration.ofSeconds(2));
		assertThat(evidence.followedEpoch()).isEqualTo(NONE);
		evidence.follows("a:1", new Answer("a:1", 10));
		assertThat(evidence.followedEpoch()).isEqualTo(10);
		evidence.follows("b:2", null);
		assertThat(evidence.followedEpoch()).as("moved, the Sentinels not asked yet: unknown").isEqualTo(NONE);
		evidence.named("b:2", new MasterVerdict(List.of(new Answer("b:2", 11), new Answer("b:2", 11)), 3));
		assertThat(evidence.followedEpoch()).isEqualTo(11);
		evidence.follows("a:1", null);
		evidence.named("b:2", new MasterVerdict(List.of(new Answer("b:2", 11)), 3));
		assertThat(evidence.followedEpoch()).as("an answer about where they no longer go changes nothing")
			.isEqualTo(NONE);
		evidence.named("a:1", new MasterVerdict(List.of(new Answer("a:1", 12), new Answer("b:2", 11)), 3));
		assertThat(evidence.followedEpoch()).isEqualTo(12);
		MasterVerdict missedTheLast = new MasterVerdict(List.of(new Answer("b:2", 11)), 3);
		assertThat(MasterEvidence.outweighs(missedTheLast, "b:2", evidence.followedEpoch()))
			.as("a Sentinel that missed only the last failover").isFalse();
		evidence.agrees(new Answer("a:1", 0));
		assertThat(evidence.followedEpoch()).as("Sentinels redeployed: it goes down").isEqualTo(0);
		evidence.agrees(new Answer("a:1", NONE));
		assertThat(evidence.followedEpoch()).as("an answer without an epoch says nothing of it").isEqualTo(0);
		evidence.named("a:1", new MasterVerdict(List.of(new Answer("b:2", 3)), 3));
		assertThat(evidence.followedEpoch()).as("no answer names where they go: unknown").isEqualTo(NONE);
	}

}
