package dev.mcprelay.testsupport;

import java.util.Arrays;

import org.springframework.core.Ordered;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.support.DependencyInjectionTestExecutionListener;

/**
 * Closes a test class's relay when the class ends, if the relay is the class's own: a class that declares a
 * {@link DynamicPropertySource} of its own has a context no other class can share (its properties point at the peers
 * it started: an authorization server, an upstream, a Redis), and the peers its {@code @AfterAll} stops are gone once
 * it ends. Left in Spring's context cache, such a relay ran on for the rest of the test JVM: its timers (the JWK Set
 * refresh, listings, reconnects) met the stopped peers and logged WARNs into the log lines a later class asserted
 * free of them (ClientConnectionBoundsTest, in CI at 05:36 on 2026-11-28: "The authorization server's keys could not
 * be fetched" from another class's relay), and its threads and heap stayed taken. A context shared by the subclasses
 * of a base ({@link RelayIntegrationTest}), whose peers live for the JVM, stays cached. Registered for every test
 * class in {@code META-INF/spring.factories}; runs after the class's {@code @AfterAll}.
 */
public class ClassOwnContextClosing implements TestExecutionListener, Ordered {

	@Override
	public void afterTestClass(TestContext testContext) {
		boolean ownProperties = Arrays.stream(testContext.getTestClass().getDeclaredMethods())
			.anyMatch(method -> method.isAnnotationPresent(DynamicPropertySource.class));
		if (ownProperties && testContext.hasApplicationContext()) {
			testContext.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
			testContext.setAttribute(DependencyInjectionTestExecutionListener.REINJECT_DEPENDENCIES_ATTRIBUTE,
					Boolean.TRUE);
		}
	}

	@Override
	public int getOrder() {
		// beside DirtiesContextTestExecutionListener (3000), which does the same for @DirtiesContext
		return 3001;
	}

}
