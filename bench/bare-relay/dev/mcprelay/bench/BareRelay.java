package dev.mcprelay.bench;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;

/**
 * The benchmark's ceiling: the least a JSON-RPC-aware relay on this platform can do per exchange. Reactor Netty's
 * HttpServer aggregates the body, scans it for {@code method} and {@code id} with Jackson's streaming parser, sends
 * it with a pooled HttpClient, scans the answer for its {@code id}, and writes it back with the upstream's status and
 * content type. No policy, no metrics, no SSE awareness: what mcp-relay costs beyond this is ours, not the platform's.
 * Run: {@code java -cp <relay jar libs>:<this> dev.mcprelay.bench.BareRelay <port> <upstream url>}.
 */
public final class BareRelay {

	private static final JsonFactory JSON = new JsonFactory();

	public static void main(String[] args) {
		int port = Integer.parseInt(args[0]);
		String upstream = args[1];
		HttpClient client = HttpClient.create(ConnectionProvider.builder("bare").maxConnections(512).build())
			.compress(false);
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(port)
			.handle((request, response) -> request.receive().aggregate().retain().flatMap(body -> {
				String method = scan(body, "method");
				if (method == null) {
					body.release();
					return response.status(400).send().then();
				}
				return client.headers(headers -> headers
						.set(HttpHeaderNames.CONTENT_TYPE, "application/json")
						.set(HttpHeaderNames.ACCEPT, request.requestHeaders().get(HttpHeaderNames.ACCEPT, "application/json")))
					.post()
					.uri(upstream)
					.send(Mono.just(body))
					.responseSingle((upstreamResponse, answer) -> answer.retain().flatMap(bytes -> {
						scan(bytes, "id");
						return response.status(upstreamResponse.status())
							.header(HttpHeaderNames.CONTENT_TYPE,
									upstreamResponse.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE, "application/json"))
							.send(ByteBufFlux.fromInbound(Mono.just(bytes)))
							.then();
					}));
			}))
			.bindNow();
		server.onDispose().block();
	}

	/** The text of the first top-level {@code field}, read without building a tree; {@code null} when absent. */
	private static String scan(ByteBuf body, String field) {
		try (JsonParser parser = JSON.createParser((java.io.InputStream) new ByteBufInputStream(body.duplicate()))) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			while (parser.nextToken() == JsonToken.FIELD_NAME) {
				String name = parser.currentName();
				JsonToken value = parser.nextToken();
				if (name.equals(field)) {
					return parser.getValueAsString(value == JsonToken.VALUE_NUMBER_INT ? parser.getText() : null);
				}
				parser.skipChildren();
			}
			return null;
		}
		catch (IOException ex) {
			return null;
		}
	}

}
