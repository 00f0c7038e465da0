package dev.mcprelay.session;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which master the Sentinels name, their answers weighed ({@link ConfiguredSentinels#weighedMaster}): the one named
 * with the highest {@code config-epoch} (each failover a Sentinel learns raises it, so a Sentinel that missed a
 * failover names the old master with a lower one), and when the answers with the highest epoch disagree, or carry no
 * epoch, the one more than half of the answers name. So one Sentinel with a stale view does not outweigh the others
 * (review 45i I-4). Pure; never fails.
 */
final class MasterVerdict {

	/** The epoch of an answer to {@code GET-MASTER-ADDR-BY-NAME}, which says none. */
	static final long NO_EPOCH = -1;

	private MasterVerdict() {
	}

	/** One Sentinel's answer: the master's {@code host:port}, and the configuration epoch it has it from. */
	record Answer(String address, long epoch) {
	}

	/** An answer to {@code SENTINEL MASTER <name>} (its fields {@code ip}, {@code port}, {@code config-epoch}). */
	static Answer answer(Map<String, String> described) {
		long epoch;
		try {
			epoch = Long.parseLong(described.getOrDefault("config-epoch", String.valueOf(NO_EPOCH)));
		}
		catch (NumberFormatException unknown) {
			epoch = NO_EPOCH;
		}
		return new Answer(described.get("ip") + ':' + described.get("port"), epoch);
	}

	/**
	 * The master {@code answers} name: the one named with the highest epoch when those answers agree, else the one
	 * named by more than half of all answers; empty when there is no answer or neither rule decides.
	 */
	static Optional<String> of(List<Answer> answers) {
		if (answers.isEmpty()) {
			return Optional.empty();
		}
		long latest = answers.stream().mapToLong(Answer::epoch).max().getAsLong();
		List<String> newest = answers.stream().filter(answer -> answer.epoch() == latest).map(Answer::address)
			.distinct().toList();
		if (latest != NO_EPOCH && newest.size() == 1) {
			return Optional.of(newest.get(0));
		}
		return answers.stream()
			.collect(Collectors.groupingBy(Answer::address, Collectors.counting()))
			.entrySet().stream()
			.filter(named -> named.getValue() * 2 > answers.size())
			.max(Comparator.comparing(Map.Entry::getValue))
			.map(Map.Entry::getKey);
	}

}
