package dev.mcprelay.transport;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.HttpMethod;

import reactor.netty.http.client.HttpClient;

/**
 * Reactor Netty's request senders ({@link UpstreamHttp#prepare}) of one {@link HttpClient}, kept per upstream
 * endpoint and method, so that a request to a configured server copies the client's configuration once (to attach
 * its body) instead of three times. For endpoints the configuration names (a few per configured server, looked up by
 * the {@link URI} each request carries, the same object per server); at most {@value #MAX_ENDPOINTS} are kept, all
 * of them dropped when a new one would pass that (reloads that changed URLs), to be prepared again as requests come.
 * Safe for any number of threads.
 */
final class PreparedSenders {

	static final int MAX_ENDPOINTS = 256;

	private final HttpClient httpClient;

	private final Map<URI, Endpoint> endpoints = new ConcurrentHashMap<>();

	PreparedSenders(HttpClient httpClient) {
		this.httpClient = httpClient;
	}

	/** The sender of {@code method} requests to {@code uri}: kept for POST, GET and DELETE, made anew for others. */
	HttpClient.RequestSender of(HttpMethod method, URI uri) {
		Endpoint endpoint = endpoints.get(uri);
		if (endpoint == null) {
			if (endpoints.size() >= MAX_ENDPOINTS) {
				endpoints.clear();
			}
			endpoint = endpoints.computeIfAbsent(uri, this::prepare);
		}
		if (HttpMethod.POST.equals(method)) {
			return endpoint.post();
		}
		if (HttpMethod.GET.equals(method)) {
			return endpoint.get();
		}
		if (HttpMethod.DELETE.equals(method)) {
			return endpoint.delete();
		}
		return UpstreamHttp.prepare(httpClient, method, uri);
	}

	private Endpoint prepare(URI uri) {
		return new Endpoint(UpstreamHttp.prepare(httpClient, HttpMethod.POST, uri),
				UpstreamHttp.prepare(httpClient, HttpMethod.GET, uri),
				UpstreamHttp.prepare(httpClient, HttpMethod.DELETE, uri));
	}

	/** The senders of one endpoint, by the methods MCP's Streamable HTTP uses. */
	private record Endpoint(HttpClient.RequestSender post, HttpClient.RequestSender get,
			HttpClient.RequestSender delete) {
	}

}
