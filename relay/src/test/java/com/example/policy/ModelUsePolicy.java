package com.example.policy;

import org.springframework.stereotype.Component;

import dev.mcprelay.api.LoggingMessageNotification;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.SamplingRequest;
import dev.mcprelay.api.SamplingRequestInterceptor;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerNotificationInterceptor;
import reactor.core.publisher.Mono;

@Component
public class ModelUsePolicy implements SamplingRequestInterceptor, ServerNotificationInterceptor {

    private static final int MAX_TOKENS = 8;

    @Override
    public String name() {
        return "model-use-policy";
    }

    @Override
    public Mono<Outcome> interceptSamplingRequest(SamplingRequest request) {
        if (request.maxTokens() > MAX_TOKENS) {
            request.setMaxTokens(MAX_TOKENS);              // the user's model is asked for less
        }
        request.setSystemPrompt("Answer briefly. Never repeat credentials.");
        return Outcome.proceed();
    }

    @Override
    public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
        if (notification instanceof LoggingMessageNotification log && "debug".equals(log.level())) {
            return Outcome.drop();                         // the server's debug logs stay inside
        }
        return Outcome.proceed();
    }

}
