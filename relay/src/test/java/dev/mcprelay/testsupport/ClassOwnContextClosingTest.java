package dev.mcprelay.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestContextManager;

/**
 * {@link ClassOwnContextClosing}, driven through Spring's own {@link TestContextManager} (so through every listener
 * {@code META-INF/spring.factories} registers, as for each test class): a class's own context is closed when the class
 * ends, a context its subclasses share through a base is not.
 */
class ClassOwnContextClosingTest {

	@Test
	void aClassWithPropertiesOfItsOwnHasItsContextClosedWhenItEnds() throws Exception {
		ConfigurableApplicationContext context = runClass(OwnProperties.class);

		assertThat(context.isActive()).as("closed with its class").isFalse();
	}

	@Test
	void aContextSharedThroughABaseStaysForTheNextSubclass() throws Exception {
		TestContextManager first = new TestContextManager(FirstOfABase.class);
		ConfigurableApplicationContext shared = run(first);
		try {
			assertThat(shared.isActive()).as("kept for the base's other subclasses").isTrue();
			assertThat(runClass(SecondOfABase.class)).as("the same context serves the next subclass").isSameAs(shared);
		}
		finally {
			first.getTestContext().markApplicationContextDirty(DirtiesContext.HierarchyMode.EXHAUSTIVE);
		}
		assertThat(shared.isActive()).isFalse();
	}

	private static ConfigurableApplicationContext runClass(Class<?> testClass) throws Exception {
		return run(new TestContextManager(testClass));
	}

	/** One class's life as JUnit's SpringExtension drives it: before, one instance prepared, after. */
	private static ConfigurableApplicationContext run(TestContextManager manager) throws Exception {
		manager.beforeTestClass();
		manager.prepareTestInstance(manager.getTestContext().getTestClass().getDeclaredConstructor().newInstance());
		ConfigurableApplicationContext context = (ConfigurableApplicationContext) manager.getTestContext()
			.getApplicationContext();
		assertThat(context.isActive()).isTrue();
		manager.afterTestClass();
		return context;
	}

	@Configuration(proxyBeanMethods = false)
	static class Nothing {

	}

	@ContextConfiguration(classes = Nothing.class)
	static class OwnProperties {

		@DynamicPropertySource
		static void peer(DynamicPropertyRegistry registry) {
			registry.add("peer.url", () -> "http://127.0.0.1:1/own");
		}

	}

	@ContextConfiguration(classes = Nothing.class)
	abstract static class Base {

		@DynamicPropertySource
		static void peer(DynamicPropertyRegistry registry) {
			registry.add("peer.url", () -> "http://127.0.0.1:1/shared");
		}

	}

	static class FirstOfABase extends Base {

	}

	static class SecondOfABase extends Base {

	}

}
