package dev.mcprelay.jsonrpc;

/**
 * Where the memory a body's JSON tree takes is charged while {@link JsonRpcParser} builds it, before each part is
 * made ({@link WeighingParser}): a budget with no room for the next part stops the parse there, by throwing.
 *
 * <p>Called on the parsing thread only, in chunks of at most {@link WeighingParser#CHUNK} bytes, plus the rest at the
 * end; what {@link #give} returns was {@link #take taken} for a moment (a string decoded by Jackson's buffers) and is
 * let go once the part is made.
 */
public interface HeapBudget {

	/** Charges nothing: for bodies whose memory is bounded elsewhere. */
	HeapBudget NONE = new HeapBudget() {

		@Override
		public void take(long bytes) {
		}

		@Override
		public void give(long bytes) {
		}

	};

	/**
	 * Takes {@code bytes} of the budget for a part about to be made.
	 *
	 * @throws RuntimeException of the budget's choosing when it has no room: the parse stops and it propagates as it
	 * is, never as a parse error
	 */
	void take(long bytes);

	/** Gives back {@code bytes} taken for a part that was only needed for a moment. */
	void give(long bytes);

}
