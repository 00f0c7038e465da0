package dev.mcprelay.security;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;

/**
 * Reads the credential a request presents from its headers, before anything checks it: the front door's first step,
 * the same on Reactor Netty's route (the MCP paths, {@link FrontDoor}) and in Spring Security's filter chain (every
 * other path, through {@link FrontDoorConfiguration}).
 *
 * <p>Runs on the event loop, once per request: it reads headers and nothing else, and never blocks.
 */
@FunctionalInterface
interface CredentialReader {

	/**
	 * The credential {@code headers} present, not yet authenticated.
	 * @return the credential as presented, or {@code null} when the request presents none (refused as
	 * {@code missing_credentials})
	 * @throws org.springframework.security.core.AuthenticationException when what is presented is malformed: a
	 * {@link FrontDoorException} with its reason, or Spring Security's bearer-token error
	 */
	Authentication read(HttpHeaders headers);

}
