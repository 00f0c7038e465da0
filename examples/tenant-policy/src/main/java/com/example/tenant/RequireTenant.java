package com.example.tenant;

import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PluginSettings;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.UserRequestInterceptor;
import reactor.core.publisher.Mono;

/**
 * Every request names its tenant: a POST without the tenant header is refused before anything else sees it
 * (-32000); GET and DELETE, which carry no message, pass.
 */
public class RequireTenant implements UserRequestInterceptor {

	private final Tenants tenants;

	public RequireTenant(PluginSettings settings) {
		this.tenants = new Tenants(settings);
	}

	@Override
	public String name() {
		return "require-tenant";
	}

	@Override
	public Mono<Outcome> interceptUserRequest(ClientMessage message) {
		if (message.hasNoMessage() || tenants.of(message.context()) != null) {
			return Outcome.proceed();
		}
		return Outcome.reject(RejectError.policy("Name your tenant in the " + tenants.header + " header."));
	}

}
