package dev.mcprelay.config;

import java.util.List;
import java.util.Optional;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * Checks {@code mcp-relay.max-buffered-bodies}, {@code max-buffered-bodies-per-caller} and each server's
 * {@code max-buffered-body} against one another and against the heap, for {@link RelayPropertiesValidator}.
 */
public final class BufferedBodiesValidator {

	private static final ConfigurationPropertyName SERVERS = ConfigurationPropertyName.of("mcp-relay.servers");

	private BufferedBodiesValidator() {
	}

	/**
	 * The memory budget of all bodies together against the heap, and each server's cap against the budget and the
	 * share of one caller (by default half the budget; not applied in security mode {@code none}, whose callers share
	 * the budget), as a body is counted while it is read (twice its size): a cap no budget can hold would
	 * refuse those bodies forever, and a budget larger than half the heap leaves too little for what the budget does
	 * not count (the relay itself, the answers it builds and writes). A server's cap that {@code environment} does not
	 * set is called the default in a problem, so that the operator knows where it comes from.
	 */
	static void validate(RelayProperties properties, Environment environment, long maxHeap,
			List<ConfigurationProblem> problems) {
		DataSize configured = properties.maxBufferedBodies();
		long budget = configured != null ? configured.toBytes() : maxHeap / RelayProperties.DEFAULT_BUFFERED_BODIES_HEAP_SHARE;
		String heap = megabytes(maxHeap) + " maximum heap";
		if (configured != null && (budget <= 0 || budget > maxHeap / 2)) {
			problems.add(new ConfigurationProblem("mcp-relay.max-buffered-bodies",
					"is " + configured + ", but it must be positive and at most half of this JVM's " + heap,
					"Write at most " + megabytes(maxHeap / 2) + ", give the JVM more heap (-Xmx, or more memory for the "
							+ "container), or remove it (default: a quarter of the heap)"));
			return;
		}
		DataSize share = properties.maxBufferedBodiesPerCaller();
		if (share != null && (share.toBytes() <= 0 || share.toBytes() > budget)) {
			problems.add(new ConfigurationProblem("mcp-relay.max-buffered-bodies-per-caller",
					"is " + megabytes(share.toBytes()) + ", but it must be positive and at most what every buffered body "
							+ "together may take ("
							+ megabytes(budget) + (configured != null ? ", mcp-relay.max-buffered-bodies"
									: ", a quarter of this JVM's " + heap) + ")",
					"Write at most " + megabytes(budget) + ", or remove it (default: half of that)"));
			return;
		}
		// anonymous callers (security mode none) are not told apart: they share the whole budget
		boolean shared = properties.security().mode() != SecurityMode.NONE;
		long callerShare = share != null ? share.toBytes() : budget / 2;
		String shareSource = share != null ? "mcp-relay.max-buffered-bodies-per-caller"
				: "half of " + megabytes(budget) + ", the default of mcp-relay.max-buffered-bodies-per-caller";
		properties.servers().forEach((id, server) -> {
			DataSize max = server.maxBufferedBody();
			if (max == null) {
				return;
			}
			// a body is counted twice while it is read: its bytes, and room for what parsing them makes
			long counted = 2 * max.toBytes();
			boolean byDefault = !Binder.get(environment)
				.bind(SERVERS.append("[" + id + "]").append("max-buffered-body"), Bindable.of(DataSize.class))
				.isBound();
			String cap = "is " + megabytes(max.toBytes()) + (byDefault ? " (the default, for a server that sets none)" : "")
					+ ", and a body is counted as twice its size while it is read (its bytes, and what parsing them makes)";
			if (counted > budget) {
				problems.add(new ConfigurationProblem("mcp-relay.servers." + id + ".max-buffered-body",
						cap + ", more than every buffered body together may take (" + megabytes(budget)
								+ (configured != null ? ", mcp-relay.max-buffered-bodies" : ", a quarter of this JVM's " + heap)
								+ "): such a body could never be read",
						"Write at most " + megabytes((shared ? Math.min(budget, callerShare) : budget) / 2) + (configured != null
								? ", or give the JVM more heap (-Xmx, or more memory for the container) and raise "
										+ "mcp-relay.max-buffered-bodies"
								: ", or give the JVM a heap of at least " + megabytes(counted * (shared && share == null ? 2 : 1)
										* RelayProperties.DEFAULT_BUFFERED_BODIES_HEAP_SHARE)
										+ " (-Xmx, or more memory for the container: the image's heap is 60% of it)")));
			}
			else if (shared && counted > callerShare) {
				problems.add(new ConfigurationProblem("mcp-relay.servers." + id + ".max-buffered-body",
						cap + ", more than one caller may hold of the buffered bodies (" + megabytes(callerShare)
								+ ", " + shareSource + "): such a body could never be read",
						"Write at most " + megabytes(callerShare / 2) + (share != null
								? ", or raise mcp-relay.max-buffered-bodies-per-caller"
								: configured != null ? ", or raise mcp-relay.max-buffered-bodies"
										: ", or give the JVM a heap of at least " + megabytes(2 * counted
												* RelayProperties.DEFAULT_BUFFERED_BODIES_HEAP_SHARE)
												+ " (-Xmx, or more memory for the container: the image's heap is 60% "
												+ "of it)")));
			}
		});
	}

	/**
	 * The warning start-up logs when one caller may hold the whole budget ({@code max-buffered-bodies-per-caller} set to
	 * it or more), in a security mode that tells callers apart: then one caller's stalled bodies refuse every other.
	 */
	public static Optional<String> wholeBudgetWarning(RelayProperties properties) {
		DataSize share = properties.maxBufferedBodiesPerCaller();
		long budget = properties.bufferedBodiesLimit().toBytes();
		if (share == null || share.toBytes() < budget || properties.security().mode() == SecurityMode.NONE) {
			return Optional.empty();
		}
		return Optional.of("mcp-relay.max-buffered-bodies-per-caller (" + megabytes(share.toBytes()) + ") is all of "
				+ "mcp-relay.max-buffered-bodies (" + megabytes(budget) + "): one caller's bodies may take the memory of "
				+ "every other caller, who then gets 503 relay_overloaded. Leave it unset (half of the budget) or write less");
	}

	private static String megabytes(long bytes) {
		return bytes / (1024 * 1024) + "MB";
	}

}
