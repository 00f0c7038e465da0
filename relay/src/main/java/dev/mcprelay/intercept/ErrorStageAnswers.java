package dev.mcprelay.intercept;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.api.UpstreamError;
import dev.mcprelay.api.jsonrpc.JsonRpcErrors;
import dev.mcprelay.api.jsonrpc.JsonRpcMessages;
import dev.mcprelay.chain.Verdict;

/** What the client gets for an upstream error or failure, once the error stage has decided about it. */
final class ErrorStageAnswers {

	private ErrorStageAnswers() {
	}

	/**
	 * The answer after the error stage's {@code verdict}: a result in the error's place, the interceptor's own error, or
	 * the error as it stands.
	 */
	static ObjectNode after(UpstreamError error, Verdict verdict) {
		return switch (verdict.kind()) {
			case REPLACE_ERROR -> JsonRpcMessages.result(error.id(), verdict.result());
			case REJECT -> JsonRpcErrors.error(error.id(), verdict.error().code(), verdict.error().getMessage(),
					verdict.error().data());
			default -> error.json();
		};
	}

}
