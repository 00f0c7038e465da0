package dev.mcprelay.testsupport;

import org.springframework.core.Ordered;

import dev.mcprelay.api.ClientMessage;
import dev.mcprelay.api.ClientNotification;
import dev.mcprelay.api.ClientNotificationInterceptor;
import dev.mcprelay.api.ClientResponse;
import dev.mcprelay.api.ClientResponseInterceptor;
import dev.mcprelay.api.ElicitationRequest;
import dev.mcprelay.api.ElicitationRequestInterceptor;
import dev.mcprelay.api.ErrorInterceptor;
import dev.mcprelay.api.InitializeRequest;
import dev.mcprelay.api.InitializeRequestInterceptor;
import dev.mcprelay.api.InitializeResponse;
import dev.mcprelay.api.InitializeResponseInterceptor;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.PromptsGetRequest;
import dev.mcprelay.api.PromptsGetRequestInterceptor;
import dev.mcprelay.api.PromptsGetResponse;
import dev.mcprelay.api.PromptsGetResponseInterceptor;
import dev.mcprelay.api.PromptsListRequestInterceptor;
import dev.mcprelay.api.PromptsListResponse;
import dev.mcprelay.api.PromptsListResponseInterceptor;
import dev.mcprelay.api.RemoteMessage;
import dev.mcprelay.api.RemoteMessageInterceptor;
import dev.mcprelay.api.RequestInterceptor;
import dev.mcprelay.api.ResourceTemplatesListRequestInterceptor;
import dev.mcprelay.api.ResourceTemplatesListResponse;
import dev.mcprelay.api.ResourceTemplatesListResponseInterceptor;
import dev.mcprelay.api.ResourcesListRequestInterceptor;
import dev.mcprelay.api.ResourcesListResponse;
import dev.mcprelay.api.ResourcesListResponseInterceptor;
import dev.mcprelay.api.ResourcesReadRequest;
import dev.mcprelay.api.ResourcesReadRequestInterceptor;
import dev.mcprelay.api.ResourcesReadResponse;
import dev.mcprelay.api.ResourcesReadResponseInterceptor;
import dev.mcprelay.api.ResponseInterceptor;
import dev.mcprelay.api.RootsListRequest;
import dev.mcprelay.api.RootsListRequestInterceptor;
import dev.mcprelay.api.SamplingRequest;
import dev.mcprelay.api.SamplingRequestInterceptor;
import dev.mcprelay.api.ServerNotification;
import dev.mcprelay.api.ServerNotificationInterceptor;
import dev.mcprelay.api.ServerRequest;
import dev.mcprelay.api.ServerRequestInterceptor;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsCallResponse;
import dev.mcprelay.api.ToolsCallResponseInterceptor;
import dev.mcprelay.api.ToolsListRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.api.UserRequestInterceptor;
import dev.mcprelay.chain.Stage;
import reactor.core.publisher.Mono;

/** An interceptor at every stage, doing what the {@link InterceptorScript} says. */
public final class ScriptedInterceptor implements UserRequestInterceptor, InitializeRequestInterceptor,
		ToolsCallRequestInterceptor, ToolsListRequestInterceptor, PromptsListRequestInterceptor,
		PromptsGetRequestInterceptor, ResourcesListRequestInterceptor, ResourceTemplatesListRequestInterceptor,
		ResourcesReadRequestInterceptor, RequestInterceptor, ClientNotificationInterceptor, RemoteMessageInterceptor,
		InitializeResponseInterceptor, ToolsCallResponseInterceptor, ToolsListResponseInterceptor,
		PromptsListResponseInterceptor, ResourcesListResponseInterceptor, ResponseInterceptor, ErrorInterceptor,
		SamplingRequestInterceptor, ElicitationRequestInterceptor, RootsListRequestInterceptor, ServerRequestInterceptor,
		ServerNotificationInterceptor, PromptsGetResponseInterceptor, ResourceTemplatesListResponseInterceptor,
		ResourcesReadResponseInterceptor, ClientResponseInterceptor, Ordered {

	private final String name;

	private final int order;

	private final InterceptorScript script;

	public ScriptedInterceptor(String name, int order, InterceptorScript script) {
		this.name = name;
		this.order = order;
		this.script = script;
	}

	@Override
	public String name() {
		return name;
	}

	@Override
	public int getOrder() {
		return order;
	}

	@Override
	public Mono<Outcome> interceptUserRequest(ClientMessage message) {
		return script.run(name, Stage.USER_REQUEST, message);
	}

	@Override
	public Mono<Outcome> interceptInitialize(InitializeRequest request) {
		return script.run(name, Stage.INITIALIZE_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
		return script.run(name, Stage.TOOLS_CALL_REQUEST, call);
	}

	@Override
	public Mono<Outcome> interceptToolsList(ListRequest request) {
		return script.run(name, Stage.TOOLS_LIST_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptPromptsList(ListRequest request) {
		return script.run(name, Stage.PROMPTS_LIST_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptPromptsGet(PromptsGetRequest request) {
		return script.run(name, Stage.PROMPTS_GET_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptResourcesList(ListRequest request) {
		return script.run(name, Stage.RESOURCES_LIST_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptResourceTemplatesList(ListRequest request) {
		return script.run(name, Stage.RESOURCE_TEMPLATES_LIST_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptResourcesRead(ResourcesReadRequest request) {
		return script.run(name, Stage.RESOURCES_READ_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptRequest(McpRequest request) {
		return script.run(name, Stage.OTHER_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptClientNotification(ClientNotification notification) {
		return script.run(name, Stage.CLIENT_NOTIFICATION, notification);
	}

	@Override
	public Mono<Outcome> interceptRemoteMessage(RemoteMessage message) {
		return script.run(name, Stage.REMOTE_MESSAGE, message);
	}

	@Override
	public Mono<Outcome> interceptInitializeResponse(InitializeResponse response) {
		return script.run(name, Stage.INITIALIZE_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptToolsCallResponse(ToolsCallResponse response) {
		return script.run(name, Stage.TOOLS_CALL_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptToolsListResponse(ToolsListResponse response) {
		return script.run(name, Stage.TOOLS_LIST_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptPromptsListResponse(PromptsListResponse response) {
		return script.run(name, Stage.PROMPTS_LIST_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptResourcesListResponse(ResourcesListResponse response) {
		return script.run(name, Stage.RESOURCES_LIST_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptResponse(McpResponse response) {
		return script.run(name, Stage.OTHER_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptError(UpstreamError error) {
		return script.run(name, Stage.ERROR, error);
	}

	@Override
	public Mono<Outcome> interceptSamplingRequest(SamplingRequest request) {
		return script.run(name, Stage.SAMPLING_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptElicitationRequest(ElicitationRequest request) {
		return script.run(name, Stage.ELICITATION_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptRootsListRequest(RootsListRequest request) {
		return script.run(name, Stage.ROOTS_LIST_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptServerRequest(ServerRequest request) {
		return script.run(name, Stage.OTHER_SERVER_REQUEST, request);
	}

	@Override
	public Mono<Outcome> interceptServerNotification(ServerNotification notification) {
		return script.run(name, Stage.SERVER_NOTIFICATION, notification);
	}

	@Override
	public Mono<Outcome> interceptPromptsGetResponse(PromptsGetResponse response) {
		return script.run(name, Stage.PROMPTS_GET_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptResourceTemplatesListResponse(ResourceTemplatesListResponse response) {
		return script.run(name, Stage.RESOURCE_TEMPLATES_LIST_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptResourcesReadResponse(ResourcesReadResponse response) {
		return script.run(name, Stage.RESOURCES_READ_RESPONSE, response);
	}

	@Override
	public Mono<Outcome> interceptClientResponse(ClientResponse response) {
		return script.run(name, Stage.CLIENT_RESPONSE, response);
	}

}
