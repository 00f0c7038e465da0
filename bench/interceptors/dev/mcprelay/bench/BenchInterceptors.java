package dev.mcprelay.bench;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RemoteMessage;
import dev.mcprelay.api.RemoteMessageInterceptor;
import dev.mcprelay.api.ResponseInterceptor;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.UserRequestInterceptor;
import reactor.core.publisher.Mono;

/**
 * Four interceptors of the kinds operators write, loaded into the relay for the "relay + 5 interceptors" run (the
 * fifth is the built-in policy interceptor (a tool deny list), switched on in the bench configuration). Each does real work on every message:
 * a header check, an argument injection (the request is re-encoded), an inspection of every upstream message, and a
 * look at every result.
 */
@Configuration(proxyBeanMethods = false)
public class BenchInterceptors {

	@Bean
	UserRequestInterceptor benchTenantCheck() {
		return new UserRequestInterceptor() {

			@Override
			public String name() {
				return "bench-tenant-check";
			}

			@Override
			public Mono<Outcome> interceptUserRequest(ClientMessage message) {
				String tenant = message.context().headers().getFirst("X-Tenant");
				return "blocked".equals(tenant) ? Outcome.reject(RejectError.policy("tenant blocked")) : Outcome.proceed();
			}

		};
	}

	@Bean
	ToolsCallRequestInterceptor benchArgumentInjection() {
		return new ToolsCallRequestInterceptor() {

			@Override
			public String name() {
				return "bench-argument-injection";
			}

			@Override
			public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
				call.setArgument("requestedBy", "bench");
				return Outcome.proceed();
			}

		};
	}

	@Bean
	RemoteMessageInterceptor benchRemoteInspection() {
		return new RemoteMessageInterceptor() {

			@Override
			public String name() {
				return "bench-remote-inspection";
			}

			@Override
			public Mono<Outcome> interceptRemoteMessage(RemoteMessage message) {
				return "sampling/createMessage".equals(message.method())
						? Outcome.reject(RejectError.policy("no sampling")) : Outcome.proceed();
			}

		};
	}

	@Bean
	ResponseInterceptor benchResultCheck() {
		return new ResponseInterceptor() {

			@Override
			public String name() {
				return "bench-result-check";
			}

			@Override
			public Mono<Outcome> interceptResponse(McpResponse response) {
				return response.result().has("content") ? Outcome.proceed()
						: Outcome.reject(RejectError.policy("empty result"));
			}

		};
	}

}
