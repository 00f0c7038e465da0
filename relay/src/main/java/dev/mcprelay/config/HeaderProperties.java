package dev.mcprelay.config;

/**
 * A header the relay sets on every request to one upstream, mcp-relay.servers.<id>.headers[n]. Exactly one
 * of value, fromRequestHeader and fromCallerClaim is given. A configured header replaces any header of the same
 * name the client sent.
 *
 * @param name the header name sent upstream
 * @param value a static value, typically {@code ${ENV_VAR}}. A secret: never logged or printed.
 * @param fromRequestHeader copy the value of this inbound request header instead of a static value
 * @param fromCallerClaim copy this claim of the authenticated caller (a JWT claim; for an API-key caller,
 * {@code sub} and {@code client_id} name its client); a list claim is sent as its values joined by ", "
 * @param required when the value cannot be resolved (the inbound header or the claim is absent), answer the client
 * 400 instead of sending the request without the header
 */
public record HeaderProperties(String name, String value, String fromRequestHeader, String fromCallerClaim,
		boolean required) {

	@Override
	public String toString() {
		String source = value != null ? "value=<redacted>"
				: fromRequestHeader != null ? "from-request-header=" + fromRequestHeader
						: "from-caller-claim=" + fromCallerClaim;
		return "HeaderProperties[name=" + name + ", " + source + ", required=" + required + "]";
	}

}
