package dev.mcprelay.testsupport;

import org.springframework.core.Ordered;

import dev.mcprelay.intercept.ElicitationRequest;
import dev.mcprelay.intercept.ElicitationRequestInterceptor;
import dev.mcprelay.intercept.RootsListRequest;
import dev.mcprelay.intercept.RootsListRequestInterceptor;
import dev.mcprelay.intercept.SamplingRequest;
import dev.mcprelay.intercept.SamplingRequestInterceptor;
import dev.mcprelay.intercept.ServerRequest;
import dev.mcprelay.intercept.ServerRequestInterceptor;
import dev.mcprelay.intercept.PromptsGetResponse;
import dev.mcprelay.intercept.PromptsGetResponseInterceptor;
import dev.mcprelay.intercept.ResourceTemplatesListResponse;
import dev.mcprelay.intercept.ResourceTemplatesListResponseInterceptor;
import dev.mcprelay.intercept.ResourcesReadResponse;
import dev.mcprelay.intercept.ResourcesReadResponseInterceptor;
import dev.mcprelay.intercept.ServerNotification;
import dev.mcprelay.intercept.ServerNotificationInterceptor;
import dev.mcprelay.intercept.ClientMessage;
import dev.mcprelay.intercept.ClientResponse;
import dev.mcprelay.intercept.ClientResponseInterceptor;
import dev.mcprelay.intercept.ClientNotification;
import dev.mcprelay.intercept.ClientNotificationInterceptor;
import dev.mcprelay.intercept.ErrorInterceptor;
import dev.mcprelay.intercept.InitializeRequest;
import dev.mcprelay.intercept.InitializeRequestInterceptor;
import dev.mcprelay.intercept.InitializeResponse;
import dev.mcprelay.intercept.InitializeResponseInterceptor;
import dev.mcprelay.intercept.ListRequest;
import dev.mcprelay.intercept.McpRequest;
import dev.mcprelay.intercept.McpResponse;
import dev.mcprelay.intercept.Outcome;
import dev.mcprelay.intercept.PromptsGetRequest;
import dev.mcprelay.intercept.PromptsGetRequestInterceptor;
import dev.mcprelay.intercept.PromptsListRequestInterceptor;
import dev.mcprelay.intercept.PromptsListResponse;
import dev.mcprelay.intercept.PromptsListResponseInterceptor;
import dev.mcprelay.intercept.RemoteMessage;
import dev.mcprelay.intercept.RemoteMessageInterceptor;
import dev.mcprelay.intercept.RequestInterceptor;
import dev.mcprelay.intercept.ResourceTemplatesListRequestInterceptor;
import dev.mcprelay.intercept.ResourcesListRequestInterceptor;
import dev.mcprelay.intercept.ResourcesListResponse;
import dev.mcprelay.intercept.ResourcesListResponseInterceptor;
import dev.mcprelay.intercept.ResourcesReadRequest;
import dev.mcprelay.intercept.ResourcesReadRequestInterceptor;
import dev.mcprelay.intercept.ResponseInterceptor;
import dev.mcprelay.intercept.Stage;
import dev.mcprelay.intercept.ToolsCallRequest;
import dev.mcprelay.intercept.ToolsCallRequestInterceptor;
import dev.mcprelay.intercept.ToolsCallResponse;
import dev.mcprelay.intercept.ToolsCallResponseInterceptor;
import dev.mcprelay.intercept.ToolsListRequestInterceptor;
import dev.mcprelay.intercept.ToolsListResponse;
import dev.mcprelay.intercept.ToolsListResponseInterceptor;
import dev.mcprelay.intercept.UpstreamError;
import dev.mcprelay.intercept.UserRequestInterceptor;
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
