package dev.mcprelay.policy;

import java.util.List;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.ServerProperties;

/**
 * One view of an upstream: what the server can tell its callers apart by, so that the tools it published to one view
 * decide only calls made in that view ({@link PublishedCatalogues}). An upstream can publish other tool definitions per
 * caller: per credential (an exchanged token, per caller) and per header the relay sends it for the caller
 * ({@code servers.<id>.headers}, from a claim or from a header of the request). So a view is the server, the caller
 * (its kind and id; for a token also its issuer and subject, whom an exchanged token speaks for) and the values of
 * the server's configured headers for the request, and the headers interceptors set or removed upstream for it
 * ({@code context().upstreamHeaders()}, as the relay's own listings send them: what the upstream sees); not what
 * changes from request to request of one caller (trace context, request ids), which the server is not configured to
 * receive by name. A header the client sends that no configuration names passes upstream too, and is not part of the
 * view: a server that tells callers apart by one must have it configured ({@code from-request-header}) for the relay
 * to keep their definitions apart. The interceptors' headers are those set when the view is read: by every
 * {@code user-request} interceptor, and by the request-stage ones ordered before the policies.
 *
 * <p>The caller and the values are kept as their SHA-256 only: a view holds no credential or claim.
 *
 * @param server the configured server
 * @param digest what tells this view apart from the server's others
 */
public record UpstreamView(String server, String digest) {

	/** The view of {@code server} that the request of {@code context} has. */
	public static UpstreamView of(CallContext context, ServerProperties server) {
		StringBuilder view = new StringBuilder(128);
		Caller caller = context.caller() == null ? Caller.ANONYMOUS : context.caller();
		field(view, caller.kind().name());
		field(view, caller.id());
		if (caller.kind() == Caller.Kind.JWT) {
			field(view, caller.claimAsText("iss"));
			field(view, caller.claimAsText("sub"));
		}
		if (server != null) {
			for (HeaderProperties header : server.headers()) {
				if (header.value() != null) {
					continue; // the same for every caller
				}
				field(view, header.name());
				if (header.fromCallerClaim() != null) {
					field(view, caller.claimAsText(header.fromCallerClaim()));
				}
				else {
					List<String> values = context.headers().get(header.fromRequestHeader());
					field(view, String.valueOf(values.size()));
					values.forEach(value -> field(view, value));
				}
			}
		}
		// what interceptors set or removed upstream for this request, in name order, after a field that ends the above
		field(view, "interceptors");
		context.upstreamHeaders().forEachChange((name, value) -> {
			field(view, name.toLowerCase(java.util.Locale.ROOT));
			field(view, value);
		});
		return new UpstreamView(context.server(), Sha256.hex(view.toString()));
	}

	/** {@code value} appended so that no two sequences of values read alike: its length, then itself. */
	private static void field(StringBuilder view, String value) {
		if (value == null) {
			view.append("-;");
		}
		else {
			view.append(value.length()).append(':').append(value).append(';');
		}
	}

}
