package dev.mcprelay.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * nginx from Debian (installed with {@code apt-get} when missing, as {@link DebianTool} does) as a gateway that routes
 * each request by one of its headers to one of several servers on 127.0.0.1: a canary or per-tenant rollout of two
 * servers behind one URL (review 46i, F1). Streams answers as they come (no response buffering, HTTP/1.1, long read
 * timeouts); request bodies are read whole (small, kept in memory), so that the access log can show each: one line per
 * request, JSON-escaped, with the server that answered and the headers named at the start ({@link #accessLog}). Its
 * configuration, logs and pid live in a folder of its own; {@link #close()} stops it.
 */
public final class NginxHeaderRouter implements AutoCloseable {

	private static final DebianTool NGINX = new DebianTool("nginx", "nginx", "These tests put a gateway that routes by "
			+ "a header in front of MCP servers: install nginx (Debian/Ubuntu: apt-get install nginx; macOS: brew "
			+ "install nginx) and run the tests again.");

	private final Process process;

	private final int port;

	private final Path folder;

	private NginxHeaderRouter(Process process, int port, Path folder) {
		this.process = process;
		this.port = port;
		this.folder = folder;
	}

	/**
	 * Starts nginx on a free loopback port: a request whose {@code header} has a value of {@code routes} goes to the
	 * server on that port, any other to {@code defaultPort}; the access log names the values of {@code logged}
	 * headers.
	 */
	public static NginxHeaderRouter start(String header, Map<String, Integer> routes, int defaultPort,
			List<String> logged) throws IOException, InterruptedException {
		return start(header, routes, defaultPort, logged, "");
	}

	/**
	 * Starts nginx in front of the server on {@code port} that refuses with 401 every request whose {@code header} does
	 * not say {@code value}: a server whose only credential is one the relay copies from the caller (review 46j, N2).
	 */
	public static NginxHeaderRouter guarding(String header, String value, int port, List<String> logged)
			throws IOException, InterruptedException {
		return start(header, Map.of(), port, logged,
				"if ($http_" + variable(header) + " != \"" + value + "\") { return 401; }");
	}

	private static NginxHeaderRouter start(String header, Map<String, Integer> routes, int defaultPort,
			List<String> logged, String guard) throws IOException, InterruptedException {
		Path nginx = NGINX.locateOrInstall();
		int port = TestUpstreams.freePort();
		Path folder = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "nginx-router-");
		Files.createDirectories(folder.resolve("logs"));
		String headers = logged.stream().map(name -> name + "=\"$http_" + variable(name) + "\"")
			.collect(Collectors.joining(" "));
		Path config = folder.resolve("nginx.conf");
		Files.writeString(config, """
				worker_processes 1;
				daemon off;
				pid %1$s/nginx.pid;
				error_log %1$s/logs/error.log warn;
				events { worker_connections 1024; }
				http {
				  client_body_temp_path %1$s/body;
				  proxy_temp_path %1$s/proxy;
				  fastcgi_temp_path %1$s/fastcgi;
				  uwsgi_temp_path %1$s/uwsgi;
				  scgi_temp_path %1$s/scgi;
				  log_format routed escape=json '$request_method $status upstream=$upstream_addr %2$s body=$request_body';
				  map $http_%3$s $routed_to {
				    default 127.0.0.1:%4$d;
				%5$s
				  }
				  server {
				    listen 127.0.0.1:%6$d;
				    access_log %1$s/logs/access.log routed;
				    client_body_buffer_size 1m;
				    location / {
				      %7$s
				      proxy_pass http://$routed_to;
				      proxy_http_version 1.1;
				      proxy_set_header Connection "";
				      proxy_set_header Host $http_host;
				      proxy_buffering off;
				      proxy_read_timeout 1h;
				    }
				  }
				}
				""".formatted(folder, headers, variable(header), defaultPort, routes.entrySet().stream()
					.map(route -> "    \"" + route.getKey() + "\" 127.0.0.1:" + route.getValue() + ";")
					.collect(Collectors.joining("\n")), port, guard));
		Process process = new ProcessBuilder(nginx.toString(), "-p", folder.toString(), "-c", config.toString())
			.redirectErrorStream(true)
			.redirectOutput(folder.resolve("logs/console.log").toFile())
			.start();
		NginxHeaderRouter router = new NginxHeaderRouter(process, port, folder);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!router.listening()) {
			if (!process.isAlive() || System.nanoTime() > deadline) {
				router.close();
				throw new AssertionError("nginx did not listen on 127.0.0.1:" + port + "; see " + folder.resolve("logs"));
			}
			Thread.sleep(50);
		}
		return router;
	}

	private static String variable(String header) {
		return header.toLowerCase(Locale.ROOT).replace('-', '_');
	}

	public int port() {
		return port;
	}

	/**
	 * nginx's access log: a line per request, {@code <method> <status> upstream=<server> <header>="<value>" ...
	 * body=<body>}, JSON-escaped (a body's quotes as {@code \"}).
	 */
	public List<String> accessLog() throws IOException {
		return Files.readAllLines(folder.resolve("logs/access.log"));
	}

	private boolean listening() {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			return true;
		}
		catch (IOException notYet) {
			return false;
		}
	}

	@Override
	public void close() throws InterruptedException {
		process.destroy();
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			process.destroyForcibly();
		}
	}

}
