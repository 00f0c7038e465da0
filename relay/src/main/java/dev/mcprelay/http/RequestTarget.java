package dev.mcprelay.http;

/**
 * A request target as received, split once into its path and query, both still percent-encoded: what the routing
 * decision and the relay read. An absolute-form target ({@code http://host/path}) gives its path; a target that is no
 * URI at all gives a path no route takes.
 *
 * @param rawPath the path, never empty
 * @param rawQuery the query without {@code ?}, or {@code null}
 */
public record RequestTarget(String rawPath, String rawQuery) {

	/** The target of {@code uri}, as the request line carried it. */
	public static RequestTarget of(String uri) {
		String target = uri;
		if (!target.startsWith("/")) {
			try {
				java.net.URI absolute = java.net.URI.create(target);
				String path = absolute.getRawPath();
				return new RequestTarget(path == null || path.isEmpty() ? "/" : path, absolute.getRawQuery());
			}
			catch (IllegalArgumentException ex) {
				return new RequestTarget(target.isEmpty() ? "/" : target, null);
			}
		}
		int hash = target.indexOf('#');
		if (hash >= 0) {
			target = target.substring(0, hash);
		}
		int question = target.indexOf('?');
		return question < 0 ? new RequestTarget(target, null)
				: new RequestTarget(target.substring(0, question), target.substring(question + 1));
	}

}
