package com.example.policy;

import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

import dev.mcprelay.intercept.Outcome;
import dev.mcprelay.intercept.RejectError;
import dev.mcprelay.intercept.ToolsCallRequest;
import dev.mcprelay.intercept.ToolsCallRequestInterceptor;
import dev.mcprelay.intercept.ToolsListResponse;
import dev.mcprelay.intercept.ToolsListResponseInterceptor;
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
