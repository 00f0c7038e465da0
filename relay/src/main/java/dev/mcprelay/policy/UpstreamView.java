package dev.mcprelay.policy;

import java.util.List;
import java.util.function.Function;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Caller;
import dev.mcprelay.config.HeaderProperties;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.UpstreamOAuth2Properties;

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
 * <p>A view is also the upstream itself as the relay reaches it: the server's URL, transport, authorization, fixed
 * headers and OAuth2 client, so that what one upstream published never decides a call to another after a reload
 * moved the server ({@code servers.<id>.url} changed) or changed whom it speaks as.
 *
 * <p>The caller and the values are kept as their SHA-256 only: a view holds no credential or claim.
 *
 * @param server the configured server
 * @param digest what tells this view apart from the server's others
 */
public record UpstreamView(String server, String digest) {

	/** The view of {@code server} that the request of {@code context} has. */
	public static UpstreamView of(CallContext context, ServerProperties server) {
		StringBuilder view = callerAndHeaders(context.caller(), name -> context.headers().get(name), server);
		// what interceptors set or removed upstream for this request, in name order, after a field that ends the above
		field(view, "interceptors");
		context.upstreamHeaders().forEachChange((name, value) -> {
			field(view, name.toLowerCase(java.util.Locale.ROOT));
			field(view, value);
		});
		return new UpstreamView(context.server(), Sha256.hex(view.toString()));
	}

	/**
	 * The view of {@code server} a request of {@code caller} with headers {@code requestHeaders} (each name's values,
	 * none: empty) has before any interceptor ran for it: for one who asks the server through the server's own
	 * exchange, where the interceptors of that exchange run (a virtual server asking its member), and keys what it
	 * keeps of the answers by this view and by what the interceptors' headers depend on.
	 */
	public static UpstreamView beforeInterceptors(String serverId, Caller caller,
			Function<String, List<String>> requestHeaders, ServerProperties server) {
		return new UpstreamView(serverId, Sha256.hex(callerAndHeaders(caller, requestHeaders, server).toString()));
	}

	/** The caller, then the values of the server's headers that differ per caller or request. */
	private static StringBuilder callerAndHeaders(Caller given, Function<String, List<String>> requestHeaders,
			ServerProperties server) {
		StringBuilder view = new StringBuilder(128);
		Caller caller = given == null ? Caller.ANONYMOUS : given;
		field(view, caller.kind().name());
		field(view, caller.id());
		if (caller.kind() == Caller.Kind.JWT) {
			field(view, caller.claimAsText("iss"));
			field(view, caller.claimAsText("sub"));
		}
		if (server != null) {
			upstream(view, server);
			for (HeaderProperties header : server.headers()) {
				if (header.value() != null) {
					continue; // the same for every caller: part of the upstream above
				}
				field(view, header.name());
				if (header.fromCallerClaim() != null) {
					field(view, caller.claimAsText(header.fromCallerClaim()));
				}
				else {
					List<String> values = requestHeaders.apply(header.fromRequestHeader());
					field(view, String.valueOf(values.size()));
					values.forEach(value -> field(view, value));
				}
			}
		}
		return view;
	}

	/** The upstream as the relay reaches it and speaks to it: another URL or credential is another view. */
	private static void upstream(StringBuilder view, ServerProperties server) {
		field(view, server.url());
		field(view, server.transport().name());
		field(view, server.authorization());
		for (HeaderProperties header : server.headers()) {
			if (header.value() != null) {
				field(view, header.name());
				field(view, header.value());
			}
		}
		UpstreamOAuth2Properties oauth2 = server.oauth2();
		if (oauth2 != null) {
			field(view, oauth2.grant().name());
			field(view, oauth2.tokenUri());
			field(view, oauth2.issuerUri());
			field(view, oauth2.clientId());
			field(view, oauth2.clientSecret());
			field(view, oauth2.privateKey());
			field(view, oauth2.keyId());
			field(view, String.join(" ", oauth2.scopes()));
			field(view, oauth2.audience());
		}
		field(view, "callers");
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
