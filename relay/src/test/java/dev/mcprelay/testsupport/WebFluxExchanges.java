package dev.mcprelay.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.server.WebFilter;

/**
 * Which requests became WebFlux exchanges: a web filter of the test's own, first of all (ahead of Spring Security's),
 * records the raw path of every exchange WebFlux makes. Import it into a relay's test ({@code @Import}) to tell the
 * requests served on Reactor Netty's route from those served by WebFlux.
 */
@TestConfiguration(proxyBeanMethods = false)
public class WebFluxExchanges {

	/** The raw paths of the requests WebFlux made an exchange of, in every relay that imports this. */
	public static final List<String> PATHS = new CopyOnWriteArrayList<>();

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	WebFilter seenByWebFlux() {
		return (exchange, chain) -> {
			PATHS.add(exchange.getRequest().getURI().getRawPath());
			return chain.filter(exchange);
		};
	}

}
