package com.example.tenant;

import dev.mcprelay.api.CallContext;

/** Who the tenant of a request is: the client's {@code X-Tenant} header. */
final class Tenants {

	static final String HEADER = "X-Tenant";

	static final String ADMIN = "admin";

	private Tenants() {
	}

	/** The request's tenant, or {@code null} when the client named none. */
	static String of(CallContext context) {
		String tenant = context.headers().getFirst(HEADER);
		return tenant == null || tenant.isBlank() ? null : tenant.trim();
	}

	static boolean isAdmin(CallContext context) {
		return ADMIN.equals(of(context));
	}

}
