package dev.mcprelay.virtual;

/**
 * A member of a virtual server could not serve a message: down, slow, refused, or not joined. The message says what
 * happened, for the client's warning and error (it never holds a secret).
 */
final class MemberUnavailable extends RuntimeException {

	private final String member;

	/** @param what what the member did, a sentence's end (a period of its own, as a member's message has, is kept once) */
	MemberUnavailable(String member, String what) {
		super("Member '" + member + "' is unavailable: it " + (what.endsWith(".") ? what : what + "."), null, false, false);
		this.member = member;
	}

	String member() {
		return member;
	}

}
