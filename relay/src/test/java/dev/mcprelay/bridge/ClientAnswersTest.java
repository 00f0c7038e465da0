package dev.mcprelay.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/**
 * The answers a round of input waits for are taken from the session the requests went to, once each, only while the
 * round waits; the round goes on when every one came, with each under the key the server named its request by.
 */
class ClientAnswersTest {

	@Test
	void everyAnswerOfTheSessionCompletesTheRoundByTheServersKeys() {
		ClientAnswers answers = new ClientAnswers();
		ClientAnswers.Expected expected = answers.expect("s1", List.of("confirm", "summary"));
		String confirm = expected.ids().get("confirm");
		String summary = expected.ids().get("summary");
		assertThat(confirm).isNotEqualTo(summary).startsWith("mcp-relay-input-");

		StepVerifier.create(expected.answers())
			.then(() -> {
				assertThat(answers.answer("s2", response(confirm, "other"))).as("another session's").isFalse();
				assertThat(answers.answer("s1", response(confirm, "yes"))).isTrue();
				assertThat(answers.answer("s1", response(confirm, "again"))).as("a repeated answer").isFalse();
				assertThat(answers.awaited()).isEqualTo(1);
				assertThat(answers.answer("s1", response(summary, "fine"))).isTrue();
			})
			.assertNext(given -> assertThat(given).containsOnlyKeys("confirm", "summary")
				.extractingByKey("confirm").extracting(answer -> answer.at("/result/text").asText()).isEqualTo("yes"))
			.verifyComplete();
		assertThat(answers.awaited()).isZero();
	}

	/**
	 * Review K's first finding: a reload that changes a server makes it a new bridge (and so new answers), as every
	 * replica sharing the session store has its own; two rounds of one session, each asked by another, minted the same
	 * id, and the user's answer to the first question was taken by the second round ("Delete the production
	 * database?"). No round takes an answer to another's request.
	 */
	@Test
	void anAnswerIsTakenOnlyByTheRoundThatAskedWhicheverBridgeMintedTheOther() {
		ClientAnswers beforeTheReload = new ClientAnswers();
		ClientAnswers afterTheReload = new ClientAnswers();
		ClientAnswers.Expected first = beforeTheReload.expect("s1", List.of("confirm"));
		ClientAnswers.Expected second = afterTheReload.expect("s1", List.of("confirm"));
		String firstId = first.ids().get("confirm");
		String secondId = second.ids().get("confirm");
		assertThat(firstId).isNotEqualTo(secondId).startsWith("mcp-relay-input-");
		assertThat(firstId.length()).as("256 random bits, as a session id").isGreaterThanOrEqualTo(16 + 43);

		StepVerifier.create(second.answers())
			.then(() -> {
				assertThat(afterTheReload.answer("s1", response(firstId, "accept: answer to the first question")))
					.as("the answer to the first round's question, at the bridge of the second").isFalse();
				assertThat(afterTheReload.awaited()).as("the second round still waits").isEqualTo(1);
				assertThat(afterTheReload.answer("s1", response(secondId, "decline"))).isTrue();
			})
			.assertNext(given -> assertThat(given.get("confirm").at("/result/text").asText()).isEqualTo("decline"))
			.verifyComplete();
		first.forget().run();
	}

	@Test
	void aRoundThatStopsWaitingForgetsWhatItWaitedFor() {
		ClientAnswers answers = new ClientAnswers();
		ClientAnswers.Expected expected = answers.expect("s1", List.of("roots"));
		Disposable waiting = expected.answers().subscribe();
		assertThat(answers.awaited()).isEqualTo(1);

		waiting.dispose();

		assertThat(answers.awaited()).isZero();
		assertThat(answers.answer("s1", response(expected.ids().get("roots"), "late"))).as("a late answer").isFalse();
		assertThat(answers.answer("s1", response("4", "not the relay's id"))).isFalse();
	}

	@Test
	void aRoundThatEndsBeforeItWaitedForgetsToo() {
		ClientAnswers answers = new ClientAnswers();
		ClientAnswers.Expected expected = answers.expect("s1", List.of("roots", "confirm"));

		expected.forget().run();

		assertThat(answers.awaited()).isZero();
	}

	/**
	 * Review 46m, M1: nothing bounded the rounds of a session that wait, each keeping the answers that came. A session
	 * has {@value ClientAnswers#MAX_ROUNDS_PER_SESSION} at most; one more waits for nothing (its request is answered
	 * input_rounds_full), and a round that ends makes room; another session is not bounded by this one's. What a round
	 * kept is given back when it ends, and an answer that comes after gives back at once what it took.
	 */
	@Test
	void aSessionHasABoundedNumberOfRoundsWaitingAndWhatTheyKeepIsGivenBack() {
		ClientAnswers answers = new ClientAnswers();
		List<ClientAnswers.Expected> rounds = new java.util.ArrayList<>();
		for (int i = 0; i < ClientAnswers.MAX_ROUNDS_PER_SESSION; i++) {
			rounds.add(answers.expect("s1", List.of("a", "b")));
		}
		assertThat(rounds).doesNotContainNull();
		assertThat(answers.expect("s1", List.of("a"))).as("one more round of the session").isNull();
		assertThat(answers.expect("s2", List.of("a"))).as("another session's").isNotNull();

		java.util.concurrent.atomic.AtomicInteger kept = new java.util.concurrent.atomic.AtomicInteger();
		ClientAnswers.Expected first = rounds.get(0);
		assertThat(answers.answer("s1", response(first.ids().get("a"), "yes"), new byte[10], bytes -> {
			kept.addAndGet((int) bytes);
			return () -> kept.addAndGet((int) -bytes);
		})).isTrue();
		assertThat(kept).as("the answer kept while the round waits for the other").hasValue(10);
		first.forget().run();
		assertThat(kept).as("given back when the round ends").hasValue(0);
		assertThat(answers.answer("s1", response(first.ids().get("b"), "late"), new byte[10], bytes -> {
			throw new AssertionError("taken for an answer no round waits for");
		})).isFalse();
		assertThat(answers.roundsOf("s1")).isEqualTo(ClientAnswers.MAX_ROUNDS_PER_SESSION - 1);
		assertThat(answers.expect("s1", List.of("a"))).as("the ended round made room").isNotNull();
	}

	private static ObjectNode response(String id, String text) {
		ObjectNode response = JsonRpcParser.mapper().createObjectNode().put("jsonrpc", "2.0").put("id", id);
		response.putObject("result").put("text", text);
		return response;
	}

}
