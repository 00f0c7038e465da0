package dev.mcprelay.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * nginx from Debian (installed with {@code apt-get} when missing, as {@link DebianTool} does) as a round-robin load
 * balancer without affinity in front of relays on 127.0.0.1: one worker, so requests take turns strictly; streaming
 * as the relay writes it (no buffering, HTTP/1.1 to the relays, long read timeouts for SSE streams); a connection to a
 * relay per request (no keep-alive pool: a connection that stays open is a stream); each response
 * says which relay served it in {@value #SERVED_BY} (nginx's {@code $upstream_addr}), and nginx's access log says so
 * too. Its configuration, logs and pid live in a folder of its own; {@link #close()} stops it.
 */
public final class NginxLoadBalancer implements AutoCloseable {

	/** The response header naming the relay ({@code 127.0.0.1:<port>}) that served a request. */
	public static final String SERVED_BY = "X-Served-By";

	private static final DebianTool NGINX = new DebianTool("nginx", "nginx", "These tests put a load balancer in front "
			+ "of several relays: install nginx (Debian/Ubuntu: apt-get install nginx; macOS: brew install nginx) and run "
			+ "the tests again.");

	private final Process process;

	private final int port;

	private final Path folder;

	private NginxLoadBalancer(Process process, int port, Path folder) {
		this.process = process;
		this.port = port;
		this.folder = folder;
	}

	/** Starts nginx on a free loopback port, balancing over the relays on {@code relayPorts}, in that order. */
	public static NginxLoadBalancer start(List<Integer> relayPorts) throws IOException, InterruptedException {
		Path nginx = NGINX.locateOrInstall();
		int port = TestUpstreams.freePort();
		Path folder = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "nginx-lb-");
		Files.createDirectories(folder.resolve("logs"));
		Path config = folder.resolve("nginx.conf");
		Files.writeString(config, """
				worker_processes 1;
				daemon off;
				pid %1$s/nginx.pid;
				error_log %1$s/logs/error.log warn;
				events { worker_connections 1024; }
				http {
				  access_log %1$s/logs/access.log;
				  client_body_temp_path %1$s/body;
				  proxy_temp_path %1$s/proxy;
				  fastcgi_temp_path %1$s/fastcgi;
				  uwsgi_temp_path %1$s/uwsgi;
				  scgi_temp_path %1$s/scgi;
				  log_format relays '$request_method $uri $status upstream=$upstream_addr';
				  upstream relays {
				%2$s
				  }
				  server {
				    listen 127.0.0.1:%3$d;
				    access_log %1$s/logs/access.log relays;
				    location / {
				      proxy_pass http://relays;
				      proxy_http_version 1.1;
				      proxy_set_header Connection "";
				      proxy_set_header Host $http_host;
				      proxy_buffering off;
				      proxy_request_buffering off;
				      proxy_read_timeout 1h;
				      proxy_next_upstream error timeout;
				      add_header %4$s $upstream_addr always;
				    }
				  }
				}
				""".formatted(folder, relayPorts.stream().map(relay -> "    server 127.0.0.1:" + relay + ";")
					.collect(Collectors.joining("\n")), port, SERVED_BY));
		Process process = new ProcessBuilder(nginx.toString(), "-p", folder.toString(), "-c", config.toString())
			.redirectErrorStream(true)
			.redirectOutput(folder.resolve("logs/console.log").toFile())
			.start();
		NginxLoadBalancer balancer = new NginxLoadBalancer(process, port, folder);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!balancer.listening()) {
			if (!process.isAlive() || System.nanoTime() > deadline) {
				balancer.close();
				throw new AssertionError("nginx did not listen on 127.0.0.1:" + port + "; see " + folder.resolve("logs"));
			}
			Thread.sleep(50);
		}
		return balancer;
	}

	public int port() {
		return port;
	}

	/** nginx's access log: a line per request, {@code <method> <path> <status> upstream=<relays tried>}. */
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
