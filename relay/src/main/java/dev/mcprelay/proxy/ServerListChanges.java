package dev.mcprelay.proxy;

/**
 * What keeps a copy of a server's lists (the policies' catalogues) and must forget it when the server says a list
 * changed. Every bean of this type hears every {@code notifications/tools/list_changed} and
 * {@code notifications/prompts/list_changed} any stream of any server carries, whatever chain the stream began on and
 * whatever governs it ({@link ListChangedWatch}): a copy is never kept past the server's word that it is stale.
 */
public interface ServerListChanges {

	/**
	 * {@code server} said its list {@code list} ({@code tools/list}, {@code prompts/list}) changed; called on the
	 * stream's thread before the notification is relayed to the client, so it must not block.
	 */
	void changed(String server, String list);

}
