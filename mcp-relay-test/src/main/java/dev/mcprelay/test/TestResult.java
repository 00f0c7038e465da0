package dev.mcprelay.test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.MessageView;
import dev.mcprelay.api.RejectError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.chain.Verdict;

/**
 * What a chain decided about one message ({@link TestMessage#run}), and the message as it would go on.
 */
public final class TestResult {

	/** What happens to the message. */
	public enum Kind {
		/** Every interceptor proceeded: the message goes on, as {@link #forwarded()} shows it. */
		PROCEED,
		/** A request is answered with {@link #result()}; nothing goes upstream. */
		RESPOND,
		/** An upstream error is answered with {@link #result()} in its place. */
		REPLACE_ERROR,
		/** A server notification goes no further. */
		DROP,
		/** The message is refused with {@link #error()}. */
		REJECT
	}

	private final Verdict verdict;

	private final MessageView view;

	private final String received;

	TestResult(Verdict verdict, MessageView view, String received) {
		this.verdict = verdict;
		this.view = view;
		this.received = received;
	}

	public Kind kind() {
		return Kind.valueOf(verdict.kind().name());
	}

	public boolean proceeded() {
		return verdict.kind() == Verdict.Kind.PROCEED;
	}

	public boolean rejected() {
		return verdict.kind() == Verdict.Kind.REJECT;
	}

	public boolean responded() {
		return verdict.kind() == Verdict.Kind.RESPOND;
	}

	public boolean dropped() {
		return verdict.kind() == Verdict.Kind.DROP;
	}

	/** The {@code name()} of the interceptor that decided; {@code null} when every one proceeded. */
	public String decidedBy() {
		return verdict.interceptor();
	}

	/**
	 * The {@code name()} of the first interceptor that changed the message while every one proceeded; {@code null}
	 * when none changed it or the chain stopped.
	 */
	public String changedBy() {
		return verdict.changedBy();
	}

	/**
	 * The error the client (or, for a server request, the server) gets, for {@link Kind#REJECT}: the interceptor's
	 * {@link RejectError}, or the relay's generic -32603 for an interceptor that threw something else, timed out,
	 * returned {@code null} or an outcome its stage does not allow. {@code null} for every other kind.
	 */
	public RejectError error() {
		return verdict.error();
	}

	/** The result answered in the message's place, for {@link Kind#RESPOND} and {@link Kind#REPLACE_ERROR}. */
	public JsonNode result() {
		return verdict.result();
	}

	/** For {@link Kind#RESPOND}, the notifications sent before the result. */
	public List<ObjectNode> notifications() {
		return verdict.notifications();
	}

	/** Whether an interceptor changed the message through the view's setters. */
	public boolean changed() {
		return view.isChanged();
	}

	/**
	 * The message as it would go on, for {@link Kind#PROCEED}: the bytes received, untouched, when nothing changed
	 * it; else the message re-encoded from its JSON, with every field no setter touched where it was.
	 *
	 * @throws IllegalStateException for any other kind: the message does not go on
	 */
	public String forwarded() {
		if (!proceeded()) {
			throw new IllegalStateException("The message does not go on: the chain decided " + kind()
					+ (decidedBy() == null ? "" : " (" + decidedBy() + ")"));
		}
		if (!view.isChanged() && received != null) {
			return received;
		}
		return new String(JsonRpcErrors.toBytes(view.json()), StandardCharsets.UTF_8);
	}

	/**
	 * The JSON-RPC response the relay writes in the message's place: the error for {@link Kind#REJECT}, the result
	 * for {@link Kind#RESPOND} and {@link Kind#REPLACE_ERROR}, with the message's id.
	 *
	 * @throws IllegalStateException for {@link Kind#PROCEED} and {@link Kind#DROP}: the relay writes no answer
	 */
	public String answer() {
		ObjectNode answer = switch (verdict.kind()) {
			case REJECT -> JsonRpcErrors.error(view.id(), error().code(), error().getMessage(), error().data());
			case RESPOND, REPLACE_ERROR -> JsonRpcMessages.result(view.id(), result());
			default -> throw new IllegalStateException("The relay writes no answer: the chain decided " + kind());
		};
		return new String(JsonRpcErrors.toBytes(answer), StandardCharsets.UTF_8);
	}

	/**
	 * The upstream request headers interceptors set ({@code name: value}) or removed ({@code name: null}) for this
	 * request.
	 */
	public Map<String, String> upstreamHeaderChanges() {
		Map<String, String> changes = new LinkedHashMap<>();
		view.context().upstreamHeaders().forEachChange(changes::put);
		return changes;
	}

	@Override
	public String toString() {
		return "TestResult[" + kind() + (decidedBy() == null ? "" : " by " + decidedBy())
				+ (error() == null ? "" : ", " + error().code() + " " + error().getMessage()) + "]";
	}

}
