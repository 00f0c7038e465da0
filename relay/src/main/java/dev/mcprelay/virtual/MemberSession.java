package dev.mcprelay.virtual;

/**
 * A virtual server's session with one member, as the session store keeps it: the session id the member's relay gave
 * (what a client of the member itself would hold) and the protocol version the member negotiated; either may be
 * {@code null} (a member without sessions, or one that named no version).
 */
record MemberSession(String sessionId, String protocolVersion) {

	/** A member with no session yet. */
	static final MemberSession NONE = new MemberSession(null, null);

	private static final char SEPARATOR = ' ';

	/** The form the store keeps: version, a space, session id (neither holds a space: both are header values). */
	String stored() {
		return (protocolVersion == null ? "" : protocolVersion) + SEPARATOR + (sessionId == null ? "" : sessionId);
	}

	static MemberSession ofStored(String stored) {
		int space = stored.indexOf(SEPARATOR);
		if (space < 0) {
			return NONE;
		}
		String version = stored.substring(0, space);
		String id = stored.substring(space + 1);
		return new MemberSession(id.isEmpty() ? null : id, version.isEmpty() ? null : version);
	}

	@Override
	public String toString() {
		return "MemberSession[" + protocolVersion + ", <redacted>]";
	}

}
