package dev.mcprelay.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.Caller;
import dev.mcprelay.api.ErrorInterceptor;
import dev.mcprelay.api.ListRequest;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.api.ToolsListResponseInterceptor;
import dev.mcprelay.api.UpstreamError;
import reactor.core.publisher.Mono;

class InterceptorTestKitTest {

	private static final String CALL = "{\"jsonrpc\":\"2.0\", \"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
			+ "\"arguments\":{\"q\":\"x\",\"limit\":1.50},\"_meta\":{\"progressToken\":\"p\"},\"x-future\":true}}";

	private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

	private final InterceptorTestKit kit = InterceptorTestKit.forServer("github")
		.caller(Caller.apiKey("ci-bot"))
		.header("X-Tenant", "acme");

	@Test
	void aChangedMessageGoesOnSplicedIntoItsOwnJson() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL).run(named("tenant", call -> {
			call.setArgument("tenant", call.context().headers().getFirst("x-tenant"));
			return Outcome.proceed();
		}));

		assertThat(result.proceeded()).isTrue();
		assertThat(result.changed()).isTrue();
		assertThat(result.forwarded()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"search\",\"arguments\":{\"q\":\"x\",\"limit\":1.50,\"tenant\":\"acme\"},"
				+ "\"_meta\":{\"progressToken\":\"p\"},\"x-future\":true}}");
	}

	@Test
	void theFirstInterceptorThatChangedTheMessageIsNamed() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL)
			.run(named("looks", call -> Outcome.proceed()), named("tenant", call -> {
				call.setArgument("tenant", "acme");
				return Outcome.proceed();
			}), named("region", call -> {
				call.setArgument("region", "eu");
				return Outcome.proceed().delayElement(Duration.ofMillis(1));
			}));

		assertThat(result.proceeded()).isTrue();
		assertThat(result.changedBy()).isEqualTo("tenant");
		assertThat(result.decidedBy()).isNull();
	}

	@Test
	void anInterceptorThatDecidesLaterAndChangesTheMessageIsNamedToo() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL)
			.run(named("looks", call -> Outcome.proceed().delayElement(Duration.ofMillis(1))),
					named("region", call -> {
						call.setArgument("region", "eu");
						return Outcome.proceed().delayElement(Duration.ofMillis(1));
					}));

		assertThat(result.changedBy()).isEqualTo("region");
	}

	@Test
	void anUnchangedMessageGoesOnByteForByte() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL).run(named("looks", call -> Outcome.proceed()));

		assertThat(result.changed()).isFalse();
		assertThat(result.forwarded()).isEqualTo(CALL);
		assertThat(result.decidedBy()).isNull();
	}

	@Test
	void aRejectionIsTheErrorTheClientGetsWithTheRequestsId() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL)
			.run(named("deny", call -> Outcome.reject(RejectError.policy("Not for " + call.context().caller().id()))));

		assertThat(result.rejected()).isTrue();
		assertThat(result.decidedBy()).isEqualTo("deny");
		assertThat(result.error().code()).isEqualTo(-32000);
		assertThat(result.answer()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32000,"
				+ "\"message\":\"Not for ci-bot\"}}");
		assertThatThrownBy(result::forwarded).isInstanceOf(IllegalStateException.class).hasMessageContaining("deny");
	}

	@Test
	void aFailingInterceptorIsAnsweredAsTheRelayAnswersIt() {
		TestResult thrown = kit.request(ToolsCallRequest.class, CALL).run(named("broken", call -> {
			throw new IllegalStateException("database password is hunter2");
		}));
		TestResult late = kit.timeout(Duration.ofMillis(100))
			.request(ToolsCallRequest.class, CALL)
			.run(named("slow", call -> Mono.never()));
		TestResult nothing = kit.request(ToolsCallRequest.class, CALL).run(named("null", call -> null));

		for (TestResult result : List.of(thrown, late, nothing)) {
			assertThat(result.rejected()).as(result.toString()).isTrue();
			assertThat(result.error().code()).isEqualTo(-32603);
			assertThat(result.error().getMessage()).doesNotContain("hunter2");
		}
	}

	@Test
	void anOutcomeTheStageDoesNotAllowIsARejection() {
		TestResult result = kit.response(ToolsListResponse.class, LIST, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}")
			.run(new ToolsListResponseInterceptor() {

				@Override
				public String name() {
					return "answers-itself";
				}

				@Override
				public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
					return Outcome.respond(java.util.Map.of("tools", List.of()));
				}

			});

		assertThat(result.rejected()).isTrue();
		assertThat(result.error().code()).isEqualTo(-32603);
	}

	@Test
	void theChainStopsAtTheFirstThatDoesNotProceedAndSkipsWhatDoesNotApply() {
		List<String> ran = new ArrayList<>();
		ToolsCallRequestInterceptor elsewhere = new ToolsCallRequestInterceptor() {

			@Override
			public String name() {
				return "elsewhere";
			}

			@Override
			public boolean appliesTo(String server) {
				return "jira".equals(server);
			}

			@Override
			public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
				ran.add("elsewhere");
				return Outcome.proceed();
			}

		};

		TestResult result = kit.request(ToolsCallRequest.class, CALL).run(elsewhere, named("first", call -> {
			ran.add("first");
			return Outcome.respond(java.util.Map.of("content", List.of()));
		}), named("second", call -> {
			ran.add("second");
			return Outcome.proceed();
		}));

		assertThat(ran).containsExactly("first");
		assertThat(result.responded()).isTrue();
		assertThat(result.answer()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}");
	}

	@Test
	void aResponseIsSeenWithItsRequestAtHand() {
		String response = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"a\",\"inputSchema\":{}},"
				+ "{\"name\":\"delete_b\",\"inputSchema\":{}}],\"nextCursor\":\"n\"}}";
		TestMessage<ToolsListResponse> message = kit.response(ToolsListResponse.class, LIST, response);

		TestResult result = message.run(new ToolsListResponseInterceptor() {

			@Override
			public String name() {
				return "no-deleting";
			}

			@Override
			public Mono<Outcome> interceptToolsListResponse(ToolsListResponse list) {
				list.removeToolsIf(tool -> tool.name().startsWith("delete_"));
				return Outcome.proceed();
			}

		});

		assertThat(message.view().request()).isInstanceOf(ListRequest.class);
		assertThat(message.stage()).isEqualTo("tools-list-response");
		assertThat(result.forwarded()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":"
				+ "[{\"name\":\"a\",\"inputSchema\":{}}],\"nextCursor\":\"n\"}}");
	}

	@Test
	void anErrorCanBeReplacedWithAResult() {
		TestResult result = kit.error(CALL, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"busy\"}}")
			.run(errorStage(error -> Outcome.replaceError(java.util.Map.of("isError", true))));

		assertThat(result.kind()).isEqualTo(TestResult.Kind.REPLACE_ERROR);
		assertThat(result.answer()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"isError\":true}}");
	}

	@Test
	void headerChangesForTheUpstreamAreReported() {
		TestResult result = kit.request(ToolsCallRequest.class, CALL).run(named("headers", call -> {
			call.context().upstreamHeaders().set("X-Upstream-Tenant", "acme");
			call.context().upstreamHeaders().remove("X-Debug");
			return Outcome.proceed();
		}));

		assertThat(result.upstreamHeaderChanges()).containsEntry("X-Upstream-Tenant", "acme").containsEntry("X-Debug", null);
	}

	@Test
	void whatTheRelayWouldNotBuildIsRefusedAtOnce() {
		assertThatThrownBy(() -> kit.request(ToolsCallRequest.class, LIST)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("ListRequest");
		assertThatThrownBy(() -> kit.request("{\"id\":1,\"method\":\"tools/call\"}"))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("Not a JSON-RPC message");
		assertThatThrownBy(() -> kit.error(CALL, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> kit.request(ToolsCallRequest.class, CALL).run(errorStage(error -> Outcome.proceed())))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("ToolsCallRequestInterceptor");
	}

	@Test
	void theContextCarriesTheKitsCallerHeadersAndVirtualServer() {
		ToolsCallRequest call = kit.virtualServer("all").request(ToolsCallRequest.class, CALL).view();

		assertThat(call.server()).isEqualTo("github");
		assertThat(call.context().virtualServer()).isEqualTo("all");
		assertThat(call.context().caller().id()).isEqualTo("ci-bot");
		assertThat(call.context().headers().get("X-TENANT")).containsExactly("acme");
	}

	private static ErrorInterceptor errorStage(java.util.function.Function<UpstreamError, Mono<Outcome>> body) {
		return new ErrorInterceptor() {

			@Override
			public String name() {
				return "error-stage";
			}

			@Override
			public Mono<Outcome> interceptError(UpstreamError error) {
				return body.apply(error);
			}

		};
	}

	private static ToolsCallRequestInterceptor named(String name, java.util.function.Function<ToolsCallRequest, Mono<Outcome>> body) {
		return new ToolsCallRequestInterceptor() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
				return body.apply(call);
			}

		};
	}

}
