package dev.mcprelay.policy;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.proxy.UpstreamRegistry;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The policy engine of the running configuration ({@link PolicyCompiler}, {@link Policies}), with its meters declared
 * for every policy and server it governs. It depends on {@link UpstreamRegistry}, so that the configuration's other
 * problems are reported first.
 */
@Configuration(proxyBeanMethods = false)
class PolicyConfiguration {

	private static final Logger log = LoggerFactory.getLogger(PolicyConfiguration.class);

	@Bean
	Policies policies(RelayProperties properties, UpstreamRegistry upstreams, MeterRegistry registry) {
		List<Policy> compiled = PolicyCompiler.compile(properties);
		PolicyMeters meters = new PolicyMeters(registry);
		for (Policy policy : compiled) {
			properties.servers().keySet().forEach(server -> {
				boolean governed = policy.governs(server, null) || properties.virtualServers()
					.entrySet()
					.stream()
					.anyMatch(virtual -> policy.governs(server, virtual.getKey())
							&& (virtual.getValue().members().contains("*")
									|| virtual.getValue().members().contains(server)));
				if (governed) {
					meters.declare(policy.name(), server, policy.enforced());
				}
			});
		}
		long audited = compiled.stream().filter(policy -> !policy.enforced()).count();
		if (!compiled.isEmpty()) {
			log.info("{} policies ({} in audit mode): {}", compiled.size(), audited,
					compiled.stream().map(Policy::name).toList());
		}
		return new Policies(compiled, meters);
	}

}
