package dev.mcprelay.session;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Which master the Sentinels name, their answers weighed ({@link ConfiguredSentinels#weighedMaster}), and how much
 * weight that verdict carries against the relay's own evidence: {@code answers} are those of the {@code asked}
 * configured Sentinels that answered.
 * <ul>
 * <li>{@link #master}: the one more than half of the configured Sentinels name, whatever the epochs (review 45l);
 * else {@link #of}.</li>
 * <li>{@link #of}: when more than half of the answers carry a {@code config-epoch} ({@code SENTINEL MASTER}), the one
 * those answers name with the highest epoch (each failover a Sentinel learns raises it, so one that missed a failover
 * names the old master with a lower one; review 45i I-4); otherwise, or when the answers with the highest epoch
 * disagree, the one more than half of all answers name. So an answer with an epoch does not outvote any number without
 * one (review 45j J-6: one stale Sentinel whose user may run {@code SENTINEL MASTER} outvoted three up-to-date ones
 * whose user may not).</li>
 * <li>{@link #heldByMostOfTheConfigured}: whether more than half of the configured Sentinels name it (Sentinel's own
 * rule for a failover): one answer, or a few, may be a stale voice (review 45j J-4).</li>
 * <li>{@link #disagreement}: what the answers name when they decide nothing (review 45j J-1).</li>
 * </ul>
 * Pure; never fails.
 */
record MasterVerdict(List<Answer> answers, int asked) {

	/** The epoch of an answer to {@code GET-MASTER-ADDR-BY-NAME}, which says none. */
	static final long NO_EPOCH = -1;

	/**
	 * One Sentinel's answer: the master's {@code host:port}, the configuration epoch it has it from, and the Sentinel's
	 * own {@code host:port} (null where not known).
	 */
	record Answer(String address, long epoch, String sentinel) {

		Answer(String address, long epoch) {
			this(address, epoch, null);
		}

		/** This answer, said by {@code sentinel}. */
		Answer from(String sentinel) {
			return new Answer(address, epoch, sentinel);
		}

	}

	MasterVerdict {
		answers = List.copyOf(answers);
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
	 * The master named by more than half of the configured Sentinels, whatever the epochs (review 45l L-1/L-2: an epoch
	 * never overrides a reachable majority that agrees); else the one the answers name ({@link #of}); empty when none
	 * answered or they decide nothing.
	 */
	Optional<String> master() {
		Optional<String> most = answers.stream().map(Answer::address).distinct()
			.filter(this::heldByMostOfTheConfigured).findFirst();
		return most.isPresent() ? most : of(answers);
	}

	/** Whether more than half of the configured Sentinels (not only of those that answered) name {@code address}. */
	boolean heldByMostOfTheConfigured(String address) {
		return named(address) * 2 > asked;
	}

	/**
	 * The latest configuration epoch an answer names {@code address} with: {@link #NO_EPOCH} when none names it with
	 * one.
	 */
	long epochOf(String address) {
		return answers.stream().filter(answer -> answer.address().equals(address)).mapToLong(Answer::epoch).max()
			.orElse(NO_EPOCH);
	}

	/** The Sentinels whose answers name {@code address}, as far as known ({@code a:1, b:2}). */
	String sentinelsNaming(String address) {
		return answers.stream().filter(answer -> answer.address().equals(address) && answer.sentinel() != null)
			.map(Answer::sentinel).collect(Collectors.joining(", "));
	}

	/** How many answers name {@code address}. */
	long named(String address) {
		return answers.stream().filter(answer -> answer.address().equals(address)).count();
	}

	/**
	 * When the answers name more than one master and decide nothing: each named with how many answers name it, most
	 * named first, then by address, so that the same split reads the same whatever order the answers came in
	 * ({@code "a:1 (1) vs b:2 (1)"}); else empty.
	 */
	Optional<String> disagreement() {
		if (master().isPresent()) {
			return Optional.empty();
		}
		Map<String, Long> counted = answers.stream()
			.collect(Collectors.groupingBy(Answer::address, LinkedHashMap::new, Collectors.counting()));
		if (counted.size() < 2) {
			return Optional.empty();
		}
		return Optional.of(counted.entrySet().stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
			.map(named -> named.getKey() + " (" + named.getValue() + ")")
			.collect(Collectors.joining(" vs ")));
	}

	/**
	 * The master {@code answers} name: when more than half of them carry an epoch, the one those name with the highest
	 * epoch when they agree; else the one named by more than half of all answers; empty when there is no answer or
	 * neither rule decides.
	 */
	static Optional<String> of(List<Answer> answers) {
		if (answers.isEmpty()) {
			return Optional.empty();
		}
		List<Answer> withEpoch = answers.stream().filter(answer -> answer.epoch() != NO_EPOCH).toList();
		if (withEpoch.size() * 2 > answers.size()) {
			long latest = withEpoch.stream().mapToLong(Answer::epoch).max().getAsLong();
			List<String> newest = withEpoch.stream().filter(answer -> answer.epoch() == latest).map(Answer::address)
				.distinct().toList();
			if (newest.size() == 1) {
				return Optional.of(newest.get(0));
			}
		}
		return answers.stream()
			.collect(Collectors.groupingBy(Answer::address, Collectors.counting()))
			.entrySet().stream()
			.filter(named -> named.getValue() * 2 > answers.size())
			.max(Comparator.comparing(Map.Entry::getValue))
			.map(Map.Entry::getKey);
	}

}
