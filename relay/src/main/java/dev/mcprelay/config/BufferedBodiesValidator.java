package dev.mcprelay.config;

import java.util.List;

import org.springframework.util.unit.DataSize;

/**
 * Checks {@code mcp-relay.max-buffered-bodies}, {@code max-buffered-bodies-per-caller} and each server's
 * {@code max-buffered-body} against one another and against the heap, for {@link RelayPropertiesValidator}.
 */
final class BufferedBodiesValidator {

	private BufferedBodiesValidator() {
	}

	/**
	 * The memory budget of all bodies together against the heap, and each server's cap against the budget and the
	 * share of one caller, as a body is counted while it is read (twice its size): a cap no budget can hold would
	 * refuse those bodies forever, and a budget larger than half the heap leaves too little for what the budget does
	 * not count (the relay itself, the answers it builds and writes).
	 */
	static void validate(RelayProperties properties, long maxHeap, List<ConfigurationProblem> problems) {
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
		properties.servers().forEach((id, server) -> {
			DataSize max = server.maxBufferedBody();
			if (max == null) {
				return;
			}
			// a body is counted twice while it is read: its bytes, and room for what parsing them makes
			long counted = 2 * max.toBytes();
			boolean byDefault = max.equals(DataSize.parse(ServerProperties.DEFAULT_MAX_BUFFERED_BODY));
			String cap = "is " + megabytes(max.toBytes()) + (byDefault ? " (the default, for a server that sets none)" : "")
					+ ", and a body is counted as twice its size while it is read (its bytes, and what parsing them makes)";
			if (counted > budget) {
				problems.add(new ConfigurationProblem("mcp-relay.servers." + id + ".max-buffered-body",
						cap + ", more than every buffered body together may take (" + megabytes(budget)
								+ (configured != null ? ", mcp-relay.max-buffered-bodies" : ", a quarter of this JVM's " + heap)
								+ "): such a body could never be read",
						"Write at most " + megabytes(budget / 2) + (configured != null
								? ", or give the JVM more heap (-Xmx, or more memory for the container) and raise "
										+ "mcp-relay.max-buffered-bodies"
								: ", or give the JVM a heap of at least " + megabytes(counted
										* RelayProperties.DEFAULT_BUFFERED_BODIES_HEAP_SHARE)
										+ " (-Xmx, or more memory for the container: the image's heap is 60% of it)")));
			}
			else if (share != null && counted > share.toBytes()) {
				problems.add(new ConfigurationProblem("mcp-relay.servers." + id + ".max-buffered-body",
						cap + ", more than one caller may hold of the buffered bodies (" + megabytes(share.toBytes())
								+ ", mcp-relay.max-buffered-bodies-per-caller): such a body could never be read",
						"Write at most " + megabytes(share.toBytes() / 2)
								+ ", or raise mcp-relay.max-buffered-bodies-per-caller"));
			}
		});
	}

	private static String megabytes(long bytes) {
		return bytes / (1024 * 1024) + "MB";
	}

}
