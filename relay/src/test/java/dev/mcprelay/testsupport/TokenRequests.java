package dev.mcprelay.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * In front of {@link SpringAuthorizationServer}'s endpoints: counts token requests, and makes the token endpoint slow
 * or refusing when a test says so.
 */
final class TokenRequests implements Filter {

	private static final HttpClient CLIENT = HttpClient.newHttpClient();

	private final AtomicInteger count = new AtomicInteger();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger mostAtOnce = new AtomicInteger();

	private volatile SpringAuthorizationServer.Mode mode = SpringAuthorizationServer.Mode.NORMAL;

	private volatile Duration delay = Duration.ZERO;

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		HttpServletRequest http = (HttpServletRequest) request;
		if (http.getRequestURI().equals("/oauth2/token")) {
			count.incrementAndGet();
			mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
			try {
				token(request, response, chain);
			}
			finally {
				inFlight.decrementAndGet();
			}
			return;
		}
		chain.doFilter(request, response);
	}

	/** The token endpoint, as the test's mode says. */
	private void token(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (mode == SpringAuthorizationServer.Mode.SLOW) {
			sleep(delay);
		}
		if (mode == SpringAuthorizationServer.Mode.REFUSE) {
			HttpServletResponse refused = (HttpServletResponse) response;
			refused.setStatus(400);
			refused.setContentType("application/json");
			refused.getWriter().write("{\"error\":\"invalid_grant\",\"error_description\":\"refused by the test\"}");
			return;
		}
		if (mode == SpringAuthorizationServer.Mode.WITHOUT_EXPIRY) {
			withoutExpiry(request, (HttpServletResponse) response, chain);
			return;
		}
		chain.doFilter(request, response);
	}

	/** The server's own answer, without {@code expires_in}. */
	private static void withoutExpiry(ServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		ContentCachingResponseWrapper answer = new ContentCachingResponseWrapper(response);
		chain.doFilter(request, answer);
		byte[] body = answer.getContentAsByteArray();
		if (answer.getStatus() == 200) {
			com.fasterxml.jackson.databind.node.ObjectNode json = (com.fasterxml.jackson.databind.node.ObjectNode) RawHttp
				.json(new String(body, StandardCharsets.UTF_8));
			json.remove("expires_in");
			body = json.toString().getBytes(StandardCharsets.UTF_8);
		}
		answer.resetBuffer();
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
		response.flushBuffer();
	}

	int count() {
		return count.get();
	}

	/** The most token requests the endpoint was answering at one time since the last {@link #resetMostAtOnce}. */
	int mostAtOnce() {
		return mostAtOnce.get();
	}

	void resetMostAtOnce() {
		mostAtOnce.set(inFlight.get());
	}

	void mode(SpringAuthorizationServer.Mode mode, Duration delay) {
		this.delay = delay == null ? Duration.ZERO : delay;
		this.mode = mode;
	}

	/** An access token for {@code clientId}, by client credentials, for {@code audience}. */
	String token(String tokenUri, String clientId, String secret, String audience) {
		String form = "grant_type=client_credentials&client_id=" + clientId + "&client_secret=" + secret + "&resource="
				+ URLEncoder.encode(audience, StandardCharsets.UTF_8);
		try {
			HttpResponse<String> answer = CLIENT.send(HttpRequest.newBuilder(URI.create(tokenUri))
				.header("Content-Type", "application/x-www-form-urlencoded")
				.POST(HttpRequest.BodyPublishers.ofString(form))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (answer.statusCode() != 200) {
				throw new IllegalStateException("No token: " + answer.statusCode() + " " + answer.body());
			}
			return RawHttp.json(answer.body()).path("access_token").asText();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(Duration delay) {
		try {
			Thread.sleep(delay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
