package dev.mcprelay.bridge;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** The strings of a JSON array a peer sent (versions it supports, list changes a client asks for), the rest skipped. */
final class JsonTexts {

	private JsonTexts() {
	}

	/** Each textual item of {@code array}, in order; empty when it is no array or holds no string. */
	static List<String> of(JsonNode array) {
		List<String> texts = new ArrayList<>();
		if (array != null && array.isArray()) {
			array.forEach(item -> {
				if (item.isTextual()) {
					texts.add(item.asText());
				}
			});
		}
		return texts;
	}

}
