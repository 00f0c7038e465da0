package dev.mcprelay.session;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import dev.mcprelay.testsupport.CuttablePathProxy;
import dev.mcprelay.testsupport.RedisSentinelProcesses;
import dev.mcprelay.testsupport.SharedRedis;

/**
 * {@code sentinel}'s deployment, its three Sentinels reached by the relays through a {@link CuttablePathProxy} each:
 * the network paths between the relays and the Sentinels, cut and restored by the test (the data servers are reached
 * directly). Closing it closes the proxies and the deployment.
 */
final class ProxiedSentinels implements SharedRedis {

	final RedisSentinelProcesses sentinel;

	final List<CuttablePathProxy> paths = new ArrayList<>();

	ProxiedSentinels(RedisSentinelProcesses sentinel) {
		this.sentinel = sentinel;
		for (int index = 0; index < 3; index++) {
			paths.add(new CuttablePathProxy(sentinel.sentinelPort(index)));
		}
	}

	/** Cuts every path to the Sentinels. */
	void cutAll() {
		paths.forEach(CuttablePathProxy::cut);
	}

	/** Restores every path to the Sentinels. */
	void passAll() {
		paths.forEach(CuttablePathProxy::pass);
	}

	@Override
	public String topology() {
		return sentinel.topology();
	}

	@Override
	public List<String> relayArguments() {
		return List.of("--spring.data.redis.sentinel.master=" + RedisSentinelProcesses.MASTER,
				"--spring.data.redis.sentinel.nodes=" + paths.stream().map(path -> "127.0.0.1:" + path.port())
					.collect(Collectors.joining(",")));
	}

	@Override
	public void close() throws Exception {
		for (CuttablePathProxy path : paths) {
			path.close();
		}
		sentinel.close();
	}

}
