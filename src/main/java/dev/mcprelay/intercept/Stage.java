package dev.mcprelay.intercept;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

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

	public static final Stage<ClientMessage> USER_REQUEST = new Stage<>("user-request", UserRequestInterceptor.class,
			REQUEST_OUTCOMES);

	public static final Stage<InitializeRequest> INITIALIZE_REQUEST = new Stage<>("initialize-request",
			InitializeRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ToolsCallRequest> TOOLS_CALL_REQUEST = new Stage<>("tools-call-request",
			ToolsCallRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> TOOLS_LIST_REQUEST = new Stage<>("tools-list-request",
			ToolsListRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> PROMPTS_LIST_REQUEST = new Stage<>("prompts-list-request",
			PromptsListRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<PromptsGetRequest> PROMPTS_GET_REQUEST = new Stage<>("prompts-get-request",
			PromptsGetRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> RESOURCES_LIST_REQUEST = new Stage<>("resources-list-request",
			ResourcesListRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ListRequest> RESOURCE_TEMPLATES_LIST_REQUEST = new Stage<>(
			"resource-templates-list-request", ResourceTemplatesListRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<ResourcesReadRequest> RESOURCES_READ_REQUEST = new Stage<>("resources-read-request",
			ResourcesReadRequestInterceptor.class, REQUEST_OUTCOMES);

	public static final Stage<McpRequest> OTHER_REQUEST = new Stage<>("other-request", RequestInterceptor.class,
			REQUEST_OUTCOMES);

	public static final Stage<ClientNotification> CLIENT_NOTIFICATION = new Stage<>("client-notification",
			ClientNotificationInterceptor.class, PROCEED_ONLY);

	public static final Stage<RemoteMessage> REMOTE_MESSAGE = new Stage<>("remote-message",
			RemoteMessageInterceptor.class, PROCEED_ONLY);

	public static final Stage<ToolsListResponse> TOOLS_LIST_RESPONSE = new Stage<>("tools-list-response",
			ToolsListResponseInterceptor.class, PROCEED_ONLY);

	public static final Stage<PromptsListResponse> PROMPTS_LIST_RESPONSE = new Stage<>("prompts-list-response",
			PromptsListResponseInterceptor.class, PROCEED_ONLY);

	public static final Stage<ResourcesListResponse> RESOURCES_LIST_RESPONSE = new Stage<>("resources-list-response",
			ResourcesListResponseInterceptor.class, PROCEED_ONLY);

	public static final Stage<McpResponse> OTHER_RESPONSE = new Stage<>("other-response", ResponseInterceptor.class,
			PROCEED_ONLY);

	public static final Stage<UpstreamError> ERROR = new Stage<>("error", ErrorInterceptor.class, ERROR_OUTCOMES);

	/** Every stage, in the order a message meets them. */
	public static final List<Stage<?>> ALL = List.of(USER_REQUEST, INITIALIZE_REQUEST, TOOLS_CALL_REQUEST,
			TOOLS_LIST_REQUEST, PROMPTS_LIST_REQUEST, PROMPTS_GET_REQUEST, RESOURCES_LIST_REQUEST,
			RESOURCE_TEMPLATES_LIST_REQUEST, RESOURCES_READ_REQUEST, OTHER_REQUEST, CLIENT_NOTIFICATION, REMOTE_MESSAGE,
			TOOLS_LIST_RESPONSE, PROMPTS_LIST_RESPONSE, RESOURCES_LIST_RESPONSE, OTHER_RESPONSE, ERROR);

	private final String name;

	private final Class<? extends Interceptor<V>> interceptorType;

	private final Set<Outcome.Kind> allowedOutcomes;

	private Stage(String name, Class<? extends Interceptor<V>> interceptorType, Set<Outcome.Kind> allowedOutcomes) {
		this.name = name;
		this.interceptorType = interceptorType;
		this.allowedOutcomes = allowedOutcomes;
	}

	/** The stage's kebab-case name, as in logs and metrics. */
	public String name() {
		return name;
	}

	/** The interface a bean implements to join this stage. */
	public Class<? extends Interceptor<V>> interceptorType() {
		return interceptorType;
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
