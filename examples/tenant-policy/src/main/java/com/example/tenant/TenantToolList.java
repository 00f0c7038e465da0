package com.example.tenant;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PluginSettings;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import reactor.core.publisher.Mono;

/** Tenants other than the admin do not see the {@code delete_} tools they may not call. */
public class TenantToolList implements ToolsListResponseInterceptor {

	private final Tenants tenants;

	public TenantToolList(PluginSettings settings) {
		this.tenants = new Tenants(settings);
	}

	@Override
	public String name() {
		return "tenant-tool-list";
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
		if (!tenants.isAdmin(list.context())) {
			list.removeToolsIf(tool -> tool.name().startsWith("delete_"));
		}
		return Outcome.proceed();
	}

}
