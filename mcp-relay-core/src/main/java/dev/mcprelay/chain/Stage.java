package dev.mcprelay.chain;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

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
import dev.mcprelay.api.Interceptor;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.McpRequest;
import dev.mcprelay.api.McpResponse;
import dev.mcprelay.api.MessageView;
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
import reactor.core.publisher.Mono;

/**
 * One interception stage: its name in logs and metrics, the interface its beans implement, and the outcomes it
 * allows. The order of the constants is the order in which a message meets the stages (DESIGN section 5).
 *
 * @param <V> the view the stage's interceptors receive
 */
public final class Stage<V extends MessageView> {

	private static final Set<Outcome.Kind> REQUEST_OUTCOMES = EnumSet.of(Outcome.Kind.PROCEED, Outcome.Kind.RESPOND);

	private static final Set<Outcome.Kind> PROCEED_ONLY = EnumSet.of(Outcome.Kind.PROCEED);

	private static final Set<Outcome.Kind> ERROR_OUTCOMES = EnumSet.of(Outcome.Kind.PROCEED,
			Outcome.Kind.REPLACE_ERROR);

	public static final Stage<ClientMessage> USER_REQUEST = Stage.of("user-request",
			UserRequestInterceptor.class, UserRequestInterceptor::interceptUserRequest, REQUEST_OUTCOMES);

	public static final Stage<InitializeRequest> INITIALIZE_REQUEST = Stage.of("initialize-request",
			InitializeRequestInterceptor.class, InitializeRequestInterceptor::interceptInitialize, REQUEST_OUTCOMES);

	public static final Stage<ToolsCallRequest> TOOLS_CALL_REQUEST = Stage.of("tools-call-request",
			ToolsCallRequestInterceptor.class, ToolsCallRequestInterceptor::interceptToolsCall, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> TOOLS_LIST_REQUEST = Stage.of("tools-list-request",
			ToolsListRequestInterceptor.class, ToolsListRequestInterceptor::interceptToolsList, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> PROMPTS_LIST_REQUEST = Stage.of("prompts-list-request",
			PromptsListRequestInterceptor.class, PromptsListRequestInterceptor::interceptPromptsList, REQUEST_OUTCOMES);

	public static final Stage<PromptsGetRequest> PROMPTS_GET_REQUEST = Stage.of("prompts-get-request",
			PromptsGetRequestInterceptor.class, PromptsGetRequestInterceptor::interceptPromptsGet, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> RESOURCES_LIST_REQUEST = Stage.of("resources-list-request",
			ResourcesListRequestInterceptor.class, ResourcesListRequestInterceptor::interceptResourcesList, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> RESOURCE_TEMPLATES_LIST_REQUEST = Stage.of("resource-templates-list-request",
			ResourceTemplatesListRequestInterceptor.class, ResourceTemplatesListRequestInterceptor::interceptResourceTemplatesList, REQUEST_OUTCOMES);

	public static final Stage<ResourcesReadRequest> RESOURCES_READ_REQUEST = Stage.of("resources-read-request",
			ResourcesReadRequestInterceptor.class, ResourcesReadRequestInterceptor::interceptResourcesRead, REQUEST_OUTCOMES);

	public static final Stage<McpRequest> OTHER_REQUEST = Stage.of("other-request",
			RequestInterceptor.class, RequestInterceptor::interceptRequest, REQUEST_OUTCOMES);

	public static final Stage<ClientNotification> CLIENT_NOTIFICATION = Stage.of("client-notification",
			ClientNotificationInterceptor.class, ClientNotificationInterceptor::interceptClientNotification, PROCEED_ONLY);

	public static final Stage<ClientResponse> CLIENT_RESPONSE = Stage.of("client-response",
			ClientResponseInterceptor.class, ClientResponseInterceptor::interceptClientResponse, PROCEED_ONLY);

	public static final Stage<RemoteMessage> REMOTE_MESSAGE = Stage.of("remote-message",
			RemoteMessageInterceptor.class, RemoteMessageInterceptor::interceptRemoteMessage, PROCEED_ONLY);

	public static final Stage<SamplingRequest> SAMPLING_REQUEST = Stage.of("sampling-request",
			SamplingRequestInterceptor.class, SamplingRequestInterceptor::interceptSamplingRequest, REQUEST_OUTCOMES);

	public static final Stage<ElicitationRequest> ELICITATION_REQUEST = Stage.of("elicitation-request",
			ElicitationRequestInterceptor.class, ElicitationRequestInterceptor::interceptElicitationRequest,
			REQUEST_OUTCOMES);

	public static final Stage<RootsListRequest> ROOTS_LIST_REQUEST = Stage.of("roots-list-request",
			RootsListRequestInterceptor.class, RootsListRequestInterceptor::interceptRootsListRequest, REQUEST_OUTCOMES);

	public static final Stage<ServerRequest> OTHER_SERVER_REQUEST = Stage.of("server-request",
			ServerRequestInterceptor.class, ServerRequestInterceptor::interceptServerRequest, REQUEST_OUTCOMES);

	public static final Stage<ServerNotification> SERVER_NOTIFICATION = Stage.of("server-notification",
			ServerNotificationInterceptor.class, ServerNotificationInterceptor::interceptServerNotification,
			EnumSet.of(Outcome.Kind.PROCEED, Outcome.Kind.DROP));

	public static final Stage<InitializeResponse> INITIALIZE_RESPONSE = Stage.of("initialize-response",
			InitializeResponseInterceptor.class, InitializeResponseInterceptor::interceptInitializeResponse, PROCEED_ONLY);

	public static final Stage<ToolsCallResponse> TOOLS_CALL_RESPONSE = Stage.of("tools-call-response",
			ToolsCallResponseInterceptor.class, ToolsCallResponseInterceptor::interceptToolsCallResponse, PROCEED_ONLY);

	public static final Stage<ToolsListResponse> TOOLS_LIST_RESPONSE = Stage.of("tools-list-response",
			ToolsListResponseInterceptor.class, ToolsListResponseInterceptor::interceptToolsListResponse, PROCEED_ONLY);

	public static final Stage<PromptsListResponse> PROMPTS_LIST_RESPONSE = Stage.of("prompts-list-response",
			PromptsListResponseInterceptor.class, PromptsListResponseInterceptor::interceptPromptsListResponse, PROCEED_ONLY);

	public static final Stage<ResourcesListResponse> RESOURCES_LIST_RESPONSE = Stage.of("resources-list-response",
			ResourcesListResponseInterceptor.class, ResourcesListResponseInterceptor::interceptResourcesListResponse, PROCEED_ONLY);

	public static final Stage<PromptsGetResponse> PROMPTS_GET_RESPONSE = Stage.of("prompts-get-response",
			PromptsGetResponseInterceptor.class, PromptsGetResponseInterceptor::interceptPromptsGetResponse, PROCEED_ONLY);

	public static final Stage<ResourceTemplatesListResponse> RESOURCE_TEMPLATES_LIST_RESPONSE = Stage.of(
			"resource-templates-list-response", ResourceTemplatesListResponseInterceptor.class,
			ResourceTemplatesListResponseInterceptor::interceptResourceTemplatesListResponse, PROCEED_ONLY);

	public static final Stage<ResourcesReadResponse> RESOURCES_READ_RESPONSE = Stage.of("resources-read-response",
			ResourcesReadResponseInterceptor.class, ResourcesReadResponseInterceptor::interceptResourcesReadResponse,
			PROCEED_ONLY);

	public static final Stage<McpResponse> OTHER_RESPONSE = Stage.of("other-response",
			ResponseInterceptor.class, ResponseInterceptor::interceptResponse, PROCEED_ONLY);

	public static final Stage<UpstreamError> ERROR = Stage.of("error",
			ErrorInterceptor.class, ErrorInterceptor::interceptError, ERROR_OUTCOMES);

	/** Every stage, in the order a message meets them. */
	public static final List<Stage<?>> ALL = List.of(USER_REQUEST, INITIALIZE_REQUEST, TOOLS_CALL_REQUEST,
			TOOLS_LIST_REQUEST, PROMPTS_LIST_REQUEST, PROMPTS_GET_REQUEST, RESOURCES_LIST_REQUEST,
			RESOURCE_TEMPLATES_LIST_REQUEST, RESOURCES_READ_REQUEST, OTHER_REQUEST, CLIENT_NOTIFICATION, CLIENT_RESPONSE, REMOTE_MESSAGE,
			SAMPLING_REQUEST, ELICITATION_REQUEST, ROOTS_LIST_REQUEST, OTHER_SERVER_REQUEST, SERVER_NOTIFICATION,
			INITIALIZE_RESPONSE, TOOLS_CALL_RESPONSE, TOOLS_LIST_RESPONSE, PROMPTS_LIST_RESPONSE, PROMPTS_GET_RESPONSE, RESOURCES_LIST_RESPONSE,
			RESOURCE_TEMPLATES_LIST_RESPONSE, RESOURCES_READ_RESPONSE, OTHER_RESPONSE, ERROR);

	private final String name;

	private final Class<? extends Interceptor> interceptorType;

	private final BiFunction<Interceptor, V, Mono<Outcome>> invoker;

	private final Set<Outcome.Kind> allowedOutcomes;

	private Stage(String name, Class<? extends Interceptor> interceptorType,
			BiFunction<Interceptor, V, Mono<Outcome>> invoker, Set<Outcome.Kind> allowedOutcomes) {
		this.name = name;
		this.interceptorType = interceptorType;
		this.invoker = invoker;
		this.allowedOutcomes = allowedOutcomes;
	}

	private static <I extends Interceptor, V extends MessageView> Stage<V> of(String name, Class<I> interceptorType,
			BiFunction<I, V, Mono<Outcome>> method, Set<Outcome.Kind> allowedOutcomes) {
		return new Stage<>(name, interceptorType,
				(interceptor, view) -> method.apply(interceptorType.cast(interceptor), view), allowedOutcomes);
	}

	/** The stage's kebab-case name, as in logs and metrics. */
	public String name() {
		return name;
	}

	/** The interface a bean implements to join this stage. */
	public Class<? extends Interceptor> interceptorType() {
		return interceptorType;
	}

	/** Calls the stage's method of {@code interceptor}, which implements {@link #interceptorType()}. */
	Mono<Outcome> invoke(Interceptor interceptor, V view) {
		return invoker.apply(interceptor, view);
	}

	/** Whether an interceptor of this stage may return {@code kind}; a reject is always allowed. */
	public boolean allows(Outcome.Kind kind) {
		return allowedOutcomes.contains(kind);
	}

	@Override
	public String toString() {
		return name;
	}

}
