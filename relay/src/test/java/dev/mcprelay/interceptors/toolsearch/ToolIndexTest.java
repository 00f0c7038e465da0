package dev.mcprelay.interceptors.toolsearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/** BM25 ranking of a catalogue: names weigh most, identifiers are words, and no query can fail. */
class ToolIndexTest {

	private static final List<ObjectNode> CATALOGUE = List.of(
			tool("create_issue", "Create an issue in a GitHub repository", "owner", "repo", "title", "body"),
			tool("search_issues", "Search issues and pull requests", "query"),
			tool("getPullRequest", "Get a pull request by number", "owner", "repo", "pullNumber"),
			tool("send-email", "Send an e-mail message to a recipient", "to", "subject"),
			tool("list_calendar_events", "List the events of a calendar between two dates", "from", "until"));

	private final ToolIndex index = new ToolIndex(CATALOGUE);

	@Test
	void theToolWhoseNameAndDescriptionMatchComesFirst() {
		assertThat(names(index.search("create a github issue", 3))).first().isEqualTo("create_issue");
		assertThat(names(index.search("email", 3))).first().isEqualTo("send-email");
		assertThat(names(index.search("pull request", 3))).first().isEqualTo("getPullRequest");
	}

	@Test
	void identifiersAndParameterNamesAreSearchedAsWords() {
		assertThat(names(index.search("calendar events", 1))).containsExactly("list_calendar_events");
		assertThat(names(index.search("subject", 5))).as("a parameter name").contains("send-email");
		assertThat(names(index.search("pullNumber", 5))).first().isEqualTo("getPullRequest");
	}

	@Test
	void theLimitCapsTheResults() {
		assertThat(index.search("issue request pull email calendar", 2)).hasSize(2);
		assertThat(index.search("issue", 1000)).hasSizeLessThanOrEqualTo(CATALOGUE.size());
	}

	@Test
	void queriesWithNoWordOrWithLuceneSyntaxNeverFail() {
		assertThat(index.search("", 5)).isEmpty();
		assertThat(index.search("   \t ", 5)).isEmpty();
		assertThat(index.search("*?~^:\"()[]{}!&&|| -+/\\", 5)).as("syntax characters are no syntax here").isEmpty();
		assertThat(names(index.search("issue AND (title:\"x\" OR body:y~2)^3", 5))).contains("create_issue");
		assertThat(index.search("issue ".repeat(2_000), 5)).as("10 KB of query").isNotEmpty();
		StringBuilder manyWords = new StringBuilder();
		for (int i = 0; i < 5_000; i++) {
			manyWords.append("word").append(i).append(' ');
		}
		assertThat(index.search(manyWords.toString(), 5)).as("more words than clauses Lucene allows").isEmpty();
	}

	@Test
	void anEmptyCatalogueFindsNothing() {
		assertThat(new ToolIndex(List.of()).search("anything", 5)).isEmpty();
	}

	@Test
	void aLargeCatalogueIsSearchable() {
		List<ObjectNode> tools = new ArrayList<>();
		for (int i = 0; i < 2_000; i++) {
			tools.add(tool("tool_" + i, "Does thing number " + i, "p" + i));
		}
		tools.add(tool("rotate_api_keys", "Rotate the service's API keys", "service"));
		assertThat(names(new ToolIndex(tools).search("rotate keys", 5))).first().isEqualTo("rotate_api_keys");
	}

	private static List<String> names(List<ObjectNode> tools) {
		return tools.stream().map(ToolIndex::name).toList();
	}

	static ObjectNode tool(String name, String description, String... parameters) {
		ObjectNode tool = JsonRpcParser.mapper().createObjectNode().put("name", name).put("description", description);
		ObjectNode properties = tool.putObject("inputSchema").put("type", "object").putObject("properties");
		for (String parameter : parameters) {
			properties.putObject(parameter).put("type", "string");
		}
		return tool;
	}

}
