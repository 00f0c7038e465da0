package com.example.policy;

import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import reactor.core.publisher.Mono;

@Component
@Order(100)
public class TenantToolPolicy implements ToolsCallRequestInterceptor, ToolsListResponseInterceptor {

    @Override
    public String name() {
        return "tenant-tool-policy";                       // kebab-case, used in logs and metrics
    }

    @Override
    public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
        String tenant = call.context().headers().getFirst("X-Tenant");
        if (call.toolName().startsWith("delete_") && !"admin".equals(tenant)) {
            return Outcome.reject(RejectError.policy("Deleting is reserved to the admin tenant."));
        }
        call.setArgument("tenant", tenant);                // the upstream receives the changed arguments
        return Outcome.proceed();
    }

    @Override
    public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
        if (!"admin".equals(list.context().headers().getFirst("X-Tenant"))) {
            list.removeToolsIf(tool -> tool.name().startsWith("delete_"));
        }
        return Outcome.proceed();
    }

}
