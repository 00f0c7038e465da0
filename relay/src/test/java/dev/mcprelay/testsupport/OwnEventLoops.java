package dev.mcprelay.testsupport;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Gives a relay that a test starts and closes itself event loops of its own: closing a context whose server runs on
 * Reactor Netty's global loops disposes them, and with them every other server and client of the test JVM. Add it as
 * a source: {@code new SpringApplicationBuilder(McpRelayApplication.class, OwnEventLoops.class)}. Not a
 * {@code @Configuration}, so that component scanning never adds it to other contexts (its {@code @Bean} method is
 * processed all the same when it is a source).
 */
public class OwnEventLoops {

	@Bean
	static BeanPostProcessor ownEventLoopsPostProcessor() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessBeforeInitialization(Object bean, String name) {
				if (bean instanceof ReactorResourceFactory resources) {
					resources.setUseGlobalResources(false);
				}
				return bean;
			}

		};
	}

}
