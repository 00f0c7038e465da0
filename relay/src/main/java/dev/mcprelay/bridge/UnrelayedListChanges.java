package dev.mcprelay.bridge;

/**
 * Hears a server's {@code notifications/<list>/list_changed} that the bridge takes from the server and relays to no
 * client: one a 2026-07-28 client's {@code subscriptions/listen} does not ask for ({@link SessionEraListen}), which the
 * client must not get. The relay's one listener of list changes hears every one it relays on its own path; this is
 * how it hears the ones the bridge keeps from the client, so that what keeps a copy of the server's lists (the
 * policies' catalogues) forgets it whatever the client listens to. Called on the stream's thread: it must not block.
 */
@FunctionalInterface
public interface UnrelayedListChanges {

	/** Hears nothing: for a bridge whose server's lists nothing keeps a copy of (tests of the bridge alone). */
	UnrelayedListChanges NONE = (server, method) -> {
	};

	/** {@code server} sent the notification {@code method} (a list's {@code list_changed}), which no client is told. */
	void heard(String server, String method);

}
