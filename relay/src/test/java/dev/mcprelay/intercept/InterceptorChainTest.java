package dev.mcprelay.intercept;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.mock.env.MockEnvironment;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.api.Outcome;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.RequestHeaders;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsCallRequestInterceptor;
import dev.mcprelay.chain.InterceptorChain;
import dev.mcprelay.chain.Stage;
import dev.mcprelay.chain.Verdict;
import dev.mcprelay.jsonrpc.JsonRpcParser;
import dev.mcprelay.live.ConfigurationSnapshot;
import dev.mcprelay.live.LiveConfiguration;
import reactor.core.publisher.Mono;

/** The one chain runner: order, the first stop ends the chain, and every way an interceptor can fail is contained. */
class InterceptorChainTest {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final List<String> calls = new CopyOnWriteArrayList<>();

	@Test
	void runsInOrderAndTheFirstThatStopsEndsTheChain() {
		Verdict verdict = run(List.of(step("a", call -> Outcome.proceed()),
				step("b", call -> Outcome.reject(RejectError.policy("no"))), step("c", call -> Outcome.proceed())));

		assertThat(calls).containsExactly("a", "b");
		assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REJECT);
		assertThat(verdict.interceptor()).isEqualTo("b");
		assertThat(verdict.error().getMessage()).isEqualTo("no");
	}

	@Test
	void emptyMeansProceed() {
		Verdict verdict = run(List.of(step("a", call -> Mono.empty()), step("b", call -> Mono.empty())));

		assertThat(calls).containsExactly("a", "b");
		assertThat(verdict.proceeds()).isTrue();
		assertThat(verdict.interceptor()).isNull();
	}

	@Test
	void respondStopsTheChainWithTheResult() {
		Verdict verdict = run(List.of(step("a", call -> Outcome.respond(java.util.Map.of("content", List.of())))));

		assertThat(verdict.kind()).isEqualTo(Verdict.Kind.RESPOND);
		assertThat(verdict.result().toString()).isEqualTo("{\"content\":[]}");
	}

	@Test
	void everyWayOfFailingIsContainedAsAGenericInternalError() {
		List<Function<ToolsCallRequest, Mono<Outcome>>> failures = List.of(
				call -> {
					throw new IllegalStateException("thrown");
				},
				call -> Mono.error(new IllegalStateException("signalled")),
				call -> Mono.delay(Duration.ofMillis(10)).then(Mono.error(new IllegalStateException("later"))),
				call -> null,
				call -> Outcome.replaceError(java.util.Map.of()));
		for (Function<ToolsCallRequest, Mono<Outcome>> failure : failures) {
			Verdict verdict = run(List.of(step("broken", failure)));

			assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REJECT);
			assertThat(verdict.interceptor()).isEqualTo("broken");
			assertThat(verdict.error().code()).isEqualTo(-32603);
			assertThat(verdict.error().getMessage()).isEqualTo("Internal error: the relay could not process this message");
		}
	}

	@Test
	void anInterceptorThatNeverAnswersTimesOut() {
		InterceptorChain<ToolsCallRequest> chain = new InterceptorChain<>(Stage.TOOLS_CALL_REQUEST,
				List.of(step("stuck", call -> Mono.never())));

		Verdict verdict = chain.run(view(), Duration.ofMillis(100)).block(TIMEOUT);

		assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REJECT);
		assertThat(verdict.error().code()).isEqualTo(-32603);
	}

	@Test
	void aRejectErrorWrappedInAnotherExceptionKeepsItsCodeAndMessage() {
		Verdict verdict = run(List.of(step("wrapping",
				call -> Mono.error(new RuntimeException(new RejectError(-32602, "Bad path argument"))))));

		assertThat(verdict.error().code()).isEqualTo(-32602);
		assertThat(verdict.error().getMessage()).isEqualTo("Bad path argument");
	}

	@Test
	void startUpFailsOnANameThatIsNotKebabCaseOrIsTakenTwiceInAStage() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("one", step("Tools_Authz", call -> Outcome.proceed()));
		beans.registerSingleton("two", step("same", call -> Outcome.proceed()));
		beans.registerSingleton("three", step("same", call -> Outcome.proceed()));

		assertThatThrownBy(() -> new InterceptorChains(beans)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("returned \"Tools_Authz\": an interceptor name is kebab-case")
			.hasMessageContaining("two interceptors of the tools-call-request stage are named \"same\"");
	}

	@Test
	void chainsFollowOrderedWhateverTheRegistrationOrder() {
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("late", new OrderedStep("late", 20));
		beans.registerSingleton("early", new OrderedStep("early", 10));

		assertThat(new InterceptorChains(beans).chain(Stage.TOOLS_CALL_REQUEST).names()).containsExactly("early", "late");
	}

	@Test
	void aServerChainLeavesOutTheInterceptorsThatDoNotApplyToIt() {
		ToolsCallRequestInterceptor onlyGithub = new ToolsCallRequestInterceptor() {

			@Override
			public String name() {
				return "only-github";
			}

			@Override
			public boolean appliesTo(String server) {
				return server.equals("github");
			}

			@Override
			public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
				calls.add("only-github");
				return Outcome.proceed();
			}

		};
		DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
		beans.registerSingleton("everywhere", step("everywhere", call -> Outcome.proceed()));
		beans.registerSingleton("onlyGithub", onlyGithub);
		InterceptorChains chains = new InterceptorChains(beans);
		LiveConfiguration live = new LiveConfiguration(dev.mcprelay.testsupport.BoundProperties.of(
				java.util.Map.of("security.mode", "none", "servers.github.url", "http://127.0.0.1:1/mcp",
						"servers.jira.url", "http://127.0.0.1:1/mcp")),
				new MockEnvironment(), List.of(chains));
		ConfigurationSnapshot snapshot = live.current();

		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, snapshot, "github").names())
			.containsExactly("everywhere", "only-github");
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, snapshot, "jira").names())
			.as("left out where it has nothing to do")
			.containsExactly("everywhere");
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, snapshot, "not-configured").names())
			.as("a server nobody configured gets every interceptor").containsExactly("everywhere", "only-github");

		ConfigurationSnapshot reloaded = live.apply(dev.mcprelay.testsupport.BoundProperties.of(java.util.Map.of(
				"security.mode", "none", "servers.github.url", "http://127.0.0.1:1/mcp", "servers.jira.url",
				"http://127.0.0.1:1/mcp", "servers.linear.url", "http://127.0.0.1:1/mcp")));
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, reloaded, "jira"))
			.as("a chain a reload leaves as it was is the previous snapshot's")
			.isSameAs(chains.chain(Stage.TOOLS_CALL_REQUEST, snapshot, "jira"));
		assertThat(chains.chain(Stage.TOOLS_CALL_REQUEST, reloaded, "linear").names())
			.as("a server the reload added has its own chain").containsExactly("everywhere");
	}

	@Test
	void anInterceptorThatDecidesLaterStillRunsUnderTheTimeout() {
		Verdict verdict = new InterceptorChain<>(Stage.TOOLS_CALL_REQUEST,
				List.of(step("slow", call -> Mono.<Outcome>never()), step("after", call -> Outcome.proceed())))
			.run(view(), Duration.ofMillis(200))
			.block(TIMEOUT);

		assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REJECT);
		assertThat(verdict.interceptor()).isEqualTo("slow");
		assertThat(calls).as("the chain stopped at the late one").doesNotContain("after");
	}

	private Verdict run(List<ToolsCallRequestInterceptor> interceptors) {
		calls.clear();
		return new InterceptorChain<>(Stage.TOOLS_CALL_REQUEST, interceptors).run(view(), TIMEOUT).block(TIMEOUT);
	}

	private ToolsCallRequestInterceptor step(String name, Function<ToolsCallRequest, Mono<Outcome>> behaviour) {
		return new ToolsCallRequestInterceptor() {

			@Override
			public String name() {
				return name;
			}

			@Override
			public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
				calls.add(name);
				return behaviour.apply(call);
			}

		};
	}

	private static ToolsCallRequest view() {
		ObjectNode message = JsonRpcParser.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", "tools/call");
		message.putObject("params").put("name", "echo");
		return new ToolsCallRequest(new CallContext("test", RequestHeaders.empty()), message);
	}

	private static final class OrderedStep implements ToolsCallRequestInterceptor, org.springframework.core.Ordered {

		private final String name;

		private final int order;

		OrderedStep(String name, int order) {
			this.name = name;
			this.order = order;
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
		public Mono<Outcome> interceptToolsCall(ToolsCallRequest call) {
			return Outcome.proceed();
		}

	}

}
