package dev.mcprelay.interceptors.toolsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * A server's tool catalogue in an in-memory Lucene index, ranked with BM25 (Lucene's default similarity) over the
 * tool's name (split into words: {@code search_issues}, {@code getSum} and {@code get-sum} all count as words), title,
 * description and the names of its parameters, name matches weighing most. Queries are free text: they are split into
 * words by the same analyzer, never parsed as Lucene syntax, so no query can fail. The tools are kept exactly as the
 * server sent them (every field, {@code execution}, {@code _meta}, vendor fields, numbers as written), never turned
 * into a type and back. Immutable once built (the tools are not to be changed); safe to search from any thread.
 */
public final class ToolIndex {

	/** Words of a query that count; the rest of a very long query is ignored. */
	static final int MAX_QUERY_TERMS = 64;

	/**
	 * Each field's weight, in the order its clauses go into a query: a fixed order, since a hit's score is the sum of
	 * its clauses' in that order, and floating-point sums in another order can break ties between tools another way
	 * (a {@code Map.of}'s order changes from one JVM to the next, so replicas could rank one search differently).
	 */
	private static final Map<String, Float> FIELD_BOOSTS = fieldBoosts();

	private static final Analyzer ANALYZER = new StandardAnalyzer();

	private final List<ObjectNode> tools;

	private final IndexSearcher searcher;

	/**
	 * Loads Lucene's classes (its codecs are found through the service loader, reading jar files): to be called once
	 * at start-up, so that the first search on an event loop does not block.
	 */
	public static void warmUp() {
		ObjectNode tool = JsonRpcParser.mapper().createObjectNode().put("name", "warm_up")
			.put("description", "warm up");
		tool.putObject("inputSchema").put("type", "object");
		new ToolIndex(List.of(tool)).search("warm", 1);
	}

	/** @param tools the tools as the server listed them (each a JSON object with at least a {@code name}) */
	public ToolIndex(List<ObjectNode> tools) {
		this.tools = List.copyOf(tools);
		ByteBuffersDirectory directory = new ByteBuffersDirectory();
		try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(ANALYZER))) {
			for (int i = 0; i < this.tools.size(); i++) {
				ObjectNode tool = this.tools.get(i);
				Document document = new Document();
				document.add(new StoredField("position", i));
				document.add(new TextField("name", words(name(tool)), Field.Store.NO));
				document.add(new TextField("title", words(text(tool, "title")), Field.Store.NO));
				document.add(new TextField("description", description(tool), Field.Store.NO));
				document.add(new TextField("parameters", words(String.join(" ", parameterNames(tool))), Field.Store.NO));
				writer.addDocument(document);
			}
			writer.commit();
			this.searcher = new IndexSearcher(DirectoryReader.open(directory));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The tools, as the server sent them, in its order. */
	public List<ObjectNode> tools() {
		return tools;
	}

	/** The tools among a server's listed {@code nodes}: the JSON objects with a name (anything else is no tool). */
	public static List<ObjectNode> toolsAmong(Iterable<JsonNode> nodes) {
		List<ObjectNode> tools = new ArrayList<>();
		for (JsonNode node : nodes) {
			if (node instanceof ObjectNode tool && node.path("name").isTextual()) {
				tools.add(tool);
			}
		}
		return tools;
	}

	/** A tool's name; {@code ""} when it has none. */
	public static String name(JsonNode tool) {
		return tool.path("name").asText("");
	}

	/** A tool's title, or {@code null}. */
	public static String title(JsonNode tool) {
		return text(tool, "title");
	}

	/** A tool's description; {@code ""} when it has none. */
	public static String description(JsonNode tool) {
		String description = text(tool, "description");
		return description == null ? "" : description;
	}

	private static String text(JsonNode tool, String field) {
		JsonNode value = tool.get(field);
		return value != null && value.isTextual() ? value.asText() : null;
	}

	/** The best matches for {@code query}, best first, at most {@code limit}; none when the query has no word. */
	public List<ObjectNode> search(String query, int limit) {
		Set<String> terms = terms(query);
		if (terms.isEmpty() || tools.isEmpty()) {
			return List.of();
		}
		BooleanQuery.Builder builder = new BooleanQuery.Builder();
		for (String term : terms) {
			FIELD_BOOSTS.forEach((field, boost) -> builder
				.add(new BoostQuery(new TermQuery(new Term(field, term)), boost), BooleanClause.Occur.SHOULD));
		}
		try {
			List<ObjectNode> found = new ArrayList<>();
			for (ScoreDoc hit : searcher.search(builder.build(), Math.min(limit, tools.size())).scoreDocs) {
				int position = searcher.storedFields().document(hit.doc).getField("position").numericValue().intValue();
				found.add(tools.get(position));
			}
			return found;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The distinct words of a query as the index holds them, at most {@link #MAX_QUERY_TERMS}. */
	private static Map<String, Float> fieldBoosts() {
		Map<String, Float> boosts = new LinkedHashMap<>();
		boosts.put("name", 4f);
		boosts.put("title", 2f);
		boosts.put("parameters", 1.5f);
		boosts.put("description", 1f);
		return Collections.unmodifiableMap(boosts);
	}

	static Set<String> terms(String query) {
		Set<String> terms = new LinkedHashSet<>();
		try (TokenStream stream = ANALYZER.tokenStream("description", words(query))) {
			CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
			stream.reset();
			while (terms.size() < MAX_QUERY_TERMS && stream.incrementToken()) {
				terms.add(term.toString());
			}
			stream.end();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return terms;
	}

	/**
	 * Text with identifiers split into words, the identifier kept as well: {@code getIssue_comments} becomes
	 * {@code getIssue_comments get Issue comments}.
	 */
	static String words(String text) {
		if (text == null) {
			return "";
		}
		String split = text.replaceAll("([a-z0-9])([A-Z])", "$1 $2").replaceAll("[_\\-./:]+", " ");
		return split.equals(text) ? text : text + " " + split;
	}

	private static List<String> parameterNames(ObjectNode tool) {
		List<String> names = new ArrayList<>();
		tool.path("inputSchema").path("properties").fieldNames().forEachRemaining(names::add);
		return names;
	}

}
