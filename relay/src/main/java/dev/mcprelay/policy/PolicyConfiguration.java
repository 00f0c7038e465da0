package dev.mcprelay.policy;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.mcprelay.proxy.ParameterHeaderChecks;
import dev.mcprelay.proxy.SpringRequestHeaders;
import dev.mcprelay.proxy.ToolDeclarations;
import dev.mcprelay.proxy.Upstream;
import dev.mcprelay.proxy.UpstreamRegistry;
import dev.mcprelay.proxy.UpstreamLister;
import reactor.core.publisher.Mono;

/**
 * The catalogues the policy engine decides calls from ({@link PublishedCatalogues}). The engine itself is a part of each
 * configuration snapshot, compiled by {@link PolicyCompiler}.
 */
@Configuration(proxyBeanMethods = false)
class PolicyConfiguration {

	/**
	 * The tools and prompts policies decide calls from, listed through each server's transport when needed: the server
	 * a request addresses, its view, age and bounds as the request's own snapshot configures it
	 * ({@link UpstreamRegistry#addressedBy}), so that a list answer of a server's old upstream that lands after a reload
	 * moved the server is kept under the old upstream's view, never the new one's.
	 */
	@Bean
	PublishedCatalogues publishedCatalogues(UpstreamLister lister, UpstreamRegistry upstreams,
			ServerListings listings) {
		return new PublishedCatalogues((context, list, until) -> {
			Upstream upstream = upstreams.addressedBy(context);
			if (upstream == null) {
				return Mono.error(new IllegalStateException("No server '" + context.server() + "' is configured"));
			}
			return lister.list(upstream, list, SpringRequestHeaders.toHttpHeaders(context.headers()),
					context.caller(), context.upstreamHeaders(), until)
				.timeout(upstream.nonStreamingTimeout());
		}, context -> {
			Upstream upstream = upstreams.addressedBy(context);
			return upstream == null ? null : upstream.properties();
		}, listings);
	}

	/**
	 * What a tool declares for mirroring into {@code Mcp-Param-*} headers, for the relay's check of those headers
	 * ({@link ParameterHeaderChecks}): from the same catalogues ({@link PublishedDeclarations}).
	 */
	@Bean
	ToolDeclarations toolDeclarations(PublishedCatalogues catalogues) {
		return new PublishedDeclarations(catalogues);
	}

}
