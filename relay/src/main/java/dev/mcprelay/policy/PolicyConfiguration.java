package dev.mcprelay.policy;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.config.RelayProperties;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.proxy.UpstreamLister;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

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
		warnOfAllowsTogether(compiled, properties);
		long audited = compiled.stream().filter(policy -> !policy.enforced()).count();
		if (!compiled.isEmpty()) {
			log.info("{} policies ({} in audit mode): {}", compiled.size(), audited,
					compiled.stream().map(Policy::name).toList());
		}
		return new Policies(compiled, meters);
	}

	/** The tools and prompts policies decide calls from, listed through each server's transport when needed. */
	@Bean
	PublishedCatalogues publishedCatalogues(UpstreamLister lister, UpstreamRegistry upstreams,
			ServerListings listings) {
		return new PublishedCatalogues((context, list) -> {
			Upstream upstream = upstreams.find(context.server());
			if (upstream == null) {
				return Mono.error(new IllegalStateException("No server '" + context.server() + "' is configured"));
			}
			return lister.list(upstream, list, SpringRequestHeaders.toHttpHeaders(context.headers()),
					context.caller(), context.upstreamHeaders())
				.timeout(upstream.nonStreamingTimeout());
		}, id -> {
			Upstream upstream = upstreams.find(id);
			return upstream == null ? null : upstream.properties();
		}, listings);
	}

	/**
	 * Warns of enforced allows that govern one server together (directly, or through one virtual server): allows are
	 * alternatives, so each opens what it is true for whatever the other says, which an author who meant each as a
	 * restriction does not expect (docs/policies.md: restrictions are written as deny).
	 */
	private static void warnOfAllowsTogether(List<Policy> compiled, RelayProperties properties) {
		java.util.Set<List<String>> warned = new java.util.HashSet<>();
		for (String server : properties.servers().keySet()) {
			List<String> virtuals = new java.util.ArrayList<>();
			virtuals.add(null);
			properties.virtualServers().forEach((id, virtual) -> {
				if (virtual.members().contains("*") || virtual.members().contains(server)) {
					virtuals.add(id);
				}
			});
			for (String virtual : virtuals) {
				List<String> allows = compiled.stream()
					.filter(policy -> policy.enforced() && !policy.denies() && policy.governs(server, virtual))
					.map(Policy::name)
					.toList();
				if (allows.size() > 1 && warned.add(allows)) {
					log.warn("Policies {} are allows that govern server '{}'{} together: a message passes when any one "
							+ "of them is true, so each opens what it allows whatever the others say. Write a "
							+ "restriction as a deny (docs/policies.md)", allows, server,
							virtual == null ? "" : " through virtual server '" + virtual + "'");
				}
			}
		}
	}

}
