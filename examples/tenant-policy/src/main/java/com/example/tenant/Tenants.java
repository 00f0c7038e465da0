package com.example.tenant;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.PluginSettings;

/**
 * Who the tenant of a request is: the client's tenant header ({@code plugins.tenant-policy.header}, default
 * {@code X-Tenant}); and which tenant administers ({@code plugins.tenant-policy.admin-tenant}, default {@code admin}).
 */
final class Tenants {

	final String header;

	private final String admin;

	Tenants(PluginSettings settings) {
		this.header = settings.get("plugins.tenant-policy.header", "X-Tenant");
		this.admin = settings.get("plugins.tenant-policy.admin-tenant", "admin");
	}

	/** The request's tenant, or {@code null} when the client named none. */
	String of(CallContext context) {
		String tenant = context.headers().getFirst(header);
		return tenant == null || tenant.isBlank() ? null : tenant.trim();
	}

	boolean isAdmin(CallContext context) {
		return admin.equals(of(context));
	}

}
