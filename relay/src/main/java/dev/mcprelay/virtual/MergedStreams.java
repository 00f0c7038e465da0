package dev.mcprelay.virtual;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import dev.mcprelay.http.RelayResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The server-to-client stream of a virtual session (GET): one client stream carrying every joined member's stream,
 * each opened through the member's relay and reopened on its own when it ends or fails, from where it stopped, while
 * the client stays. A member that offers no stream (405) is left out. Each event's id is the position of every
 * member's stream so far ({@link MemberIds#eventId}), so that the client's {@code Last-Event-ID} resumes each member
 * where it stopped; a member's request gets an id the client's answer is routed back by ({@link AnswerRelay}). The
 * client going away cancels every member stream.
 */
@Component
class MergedStreams {

	private static final Logger log = LoggerFactory.getLogger(MergedStreams.class);

	/** The first wait before a member's stream is reopened; doubled per failure in a row, up to {@link #MAX_BACKOFF}. */
	static final Duration FIRST_BACKOFF = Duration.ofMillis(500);

	static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

	private final MemberCalls calls;

	private final AnswerRelay answers;

	MergedStreams(MemberCalls calls, AnswerRelay answers) {
		this.calls = calls;
		this.answers = answers;
	}

	Mono<Void> open(VirtualCall call) {
		Map<String, String> positions = new LinkedHashMap<>(
				MemberIds.positions(call.exchange().requestHeaders().get("Last-Event-ID")));
		positions.keySet().retainAll(call.session().members().keySet());
		List<String> members = call.usable().stream().filter(call::joined).toList();
		RelayResponse response = call.exchange().response();
		call.exchange().record().forwarded(HttpStatus.OK.value());
		response.status(HttpStatus.OK);
		AnswerRelay.eventStreamHeaders(response.headers());
		response.headers().set("Mcp-Session-Id", call.session().id());
		Flux<byte[]> merged = Flux.merge(members.stream().map(member -> memberStream(call, member, positions)).toList());
		return AnswerRelay.writeEvents(response, merged);
	}

	/** {@code member}'s stream, reopened when it ends, as the client's events. */
	private Flux<byte[]> memberStream(VirtualCall call, String member, Map<String, String> positions) {
		return Mono.defer(() -> {
			String resumeAfter;
			synchronized (positions) {
				resumeAfter = positions.get(member);
			}
			return calls.send(call.exchange(), call.access(), member, HttpMethod.GET, call.memberSession(member),
					resumeAfter, null);
		}).flatMapMany(answer -> {
			if (!answer.isEventStream()) {
				int status = answer.status().value();
				return answer.discard().then(Mono.<byte[]>error(new NoStream(member, status)));
			}
			return MemberMessages.events(answer).map(event -> {
				String eventId = null;
				synchronized (positions) {
					if (event.id() != null) {
						positions.put(member, event.id());
						eventId = MemberIds.eventId(positions);
					}
				}
				return answers.rewrite(call, member, event, eventId);
			});
		})
			// A stream that ended is reopened, from where it stopped.
			.repeatWhen(ends -> ends.delayElements(FIRST_BACKOFF))
			.retryWhen(Retry.backoff(Long.MAX_VALUE, FIRST_BACKOFF).maxBackoff(MAX_BACKOFF)
				.filter(error -> !(error instanceof NoStream nostream && nostream.permanent()))
				.doBeforeRetry(signal -> log.debug("Virtual server '{}': the stream of member '{}' failed, reopening",
						call.server().id(), member, signal.failure())))
			.onErrorResume(NoStream.class, ex -> Flux.empty());
	}

	/** A member answered a GET with no stream: for good (405: it offers none), or for now (any other status). */
	private static final class NoStream extends RuntimeException {

		private final int status;

		NoStream(String member, int status) {
			super("Member '" + member + "' answered GET with HTTP " + status, null, false, false);
			this.status = status;
		}

		boolean permanent() {
			return status == 405 || status == 404 || status == 400;
		}

	}

}
