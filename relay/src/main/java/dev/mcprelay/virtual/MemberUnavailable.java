package dev.mcprelay.virtual;

/**
 * A member of a virtual server could not serve a message: down, slow, refused, or not joined. The message says what
 * happened, for the client's warning and error (it never holds a secret).
 */
final class MemberUnavailable extends RuntimeException {

	private final String member;

	MemberUnavailable(String member, String what) {
		super("Member '" + member + "' is unavailable: it " + what + ".", null, false, false);
		this.member = member;
	}

	String member() {
		return member;
	}

}
