package com.example.tenant;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PluginSettings;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import reactor.core.publisher.Mono;

/**
 * Tool calls carry their tenant: the upstream gets the argument {@code tenant} set to the caller's tenant (whatever
 * the client wrote there), and only the admin tenant may call a tool whose name starts with {@code delete_}.
 */
public class TenantToolCalls implements ToolsCallRequestInterceptor {

	private final Tenants tenants;

	public TenantToolCalls(PluginSettings settings) {
		this.tenants = new Tenants(settings);
	}

	@Override
	public String name() {
		return "tenant-tool-calls";
	}

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		if (call.toolName().startsWith("delete_") && !tenants.isAdmin(call.context())) {
			return Outcome.reject(RejectError.policy("Deleting is reserved to the admin tenant."));
		}
		call.setArgument("tenant", tenants.of(call.context()));
		return Outcome.proceed();
	}

}
