package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import reactor.core.publisher.Flux;

/**
 * Every member body meets the one UTF-8 JSON text check ({@code JsonText}) before it is parsed: Jackson reads UTF-16
 * and skips a byte-order mark, where the member's relay and the client read other text.
 */
class MemberMessagesTest {

	private static final String SESSION_ERROR = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
			+ "\"message\":\"Bad Request: No valid session ID provided\"}}";

	@Test
	void aBodyThatIsNoUtf8JsonTextIsNoMessage() {
		assertThat(MemberMessages.parse(SESSION_ERROR.getBytes(StandardCharsets.UTF_8))).isNotNull();
		assertThat(MemberMessages.parse(SESSION_ERROR.getBytes(StandardCharsets.UTF_16))).isNull();
		assertThat(MemberMessages.parse(("\uFEFF" + SESSION_ERROR).getBytes(StandardCharsets.UTF_8))).isNull();
		assertThat(MemberMessages.all(json(HttpStatus.OK, SESSION_ERROR.getBytes(StandardCharsets.UTF_16LE))).block())
			.isEmpty();
	}

	@Test
	void aSessionErrorInUtf16IsNotReadAsOne() {
		assertThat(MemberSessionLost.aboutTheSession(SESSION_ERROR.getBytes(StandardCharsets.UTF_8))).isTrue();
		assertThat(MemberSessionLost.aboutTheSession(SESSION_ERROR.getBytes(StandardCharsets.UTF_16BE))).isFalse();
	}

	@Test
	void anAnswerThatDidNotSucceedGivesItsErrorsButNoResult() {
		String batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}," + SESSION_ERROR + "]";

		assertThat(MemberMessages.all(json(HttpStatus.OK, batch.getBytes(StandardCharsets.UTF_8))).block()).hasSize(2);
		assertThat(MemberMessages.all(json(HttpStatus.INTERNAL_SERVER_ERROR, batch.getBytes(StandardCharsets.UTF_8)))
			.block()).singleElement().satisfies(message -> assertThat(message.has("error")).isTrue());
	}

	private static MemberAnswer json(HttpStatus status, byte[] body) {
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.APPLICATION_JSON);
		return new MemberAnswer("d", status, headers,
				Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body))));
	}

}
