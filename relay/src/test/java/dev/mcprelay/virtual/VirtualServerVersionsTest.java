package dev.mcprelay.virtual;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import dev.mcprelay.live.LiveConfiguration;
import dev.mcprelay.testsupport.BoundProperties;

/**
 * Which reloads end a virtual server's version, and so its sessions ({@link VirtualServers}): a change to its own
 * settings does, and removing it; {@code members: ["*"]} taking in a server added or losing one removed does not, nor
 * a removed server's mentions leaving with it, nor a change to another virtual server. An ended version says why, and
 * what keeps its sessions is told after its streams were.
 */
class VirtualServerVersionsTest {

	private static final Map<String, String> RUNNING = Map.of("security.mode", "none",
			"servers.alpha.url", "http://127.0.0.1:1/mcp", "servers.beta.url", "http://127.0.0.1:2/mcp",
			"virtual-servers.pair.members[0]", "alpha", "virtual-servers.pair.members[1]", "beta",
			"virtual-servers.pair.prefix.beta", "b_", "virtual-servers.every.members[0]", "*");

	private final VirtualServers servers = new VirtualServers();

	private final List<String> retired = new ArrayList<>();

	private final LiveConfiguration live = new LiveConfiguration(BoundProperties.of(RUNNING), new MockEnvironment(),
			List.of(servers));

	VirtualServerVersionsTest() {
		servers.onRetired(server -> retired.add(server.id() + " " + server.version().endedBy()));
	}

	@Test
	void aServerAddedOrRemovedWithItsMentionsKeepsEveryVersionAndTheirMembersFollow() {
		VirtualServer pair = find("pair");
		VirtualServer every = find("every");

		live.apply(BoundProperties.of(with(Map.of("servers.gamma.url", "http://127.0.0.1:3/mcp"))));
		assertThat(find("every").members()).containsExactlyInAnyOrder("alpha", "beta", "gamma");
		assertThat(find("every").version()).isSameAs(every.version());
		assertThat(find("pair")).as("a virtual server left as it was is the same object").isSameAs(pair);

		Map<String, String> betaRemoved = new HashMap<>(RUNNING);
		betaRemoved.remove("servers.beta.url");
		betaRemoved.remove("virtual-servers.pair.members[1]");
		betaRemoved.remove("virtual-servers.pair.prefix.beta");
		live.apply(BoundProperties.of(betaRemoved));
		assertThat(find("pair").members()).containsExactly("alpha");
		assertThat(find("pair").version()).isSameAs(pair.version());
		assertThat(find("every").version()).isSameAs(every.version());
		assertThat(retired).isEmpty();
		assertThat(pair.version().isEnded()).isFalse();
	}

	@Test
	void aChangedVirtualServerGetsANewVersionAndItsOldOneEndsWithSessionEnded() {
		VirtualServer pair = find("pair");
		VirtualServer every = find("every");

		live.apply(BoundProperties.of(with(Map.of("virtual-servers.pair.prefix.beta", "beta_"))));

		assertThat(find("pair").version()).isNotSameAs(pair.version());
		assertThat(pair.version().isEnded()).isTrue();
		assertThat(pair.version().endedFor(pair.terms()).block()).isEqualTo("session_ended");
		assertThat(find("every").version()).as("another virtual server is left as it was").isSameAs(every.version());
		assertThat(every.version().isEnded()).isFalse();
		assertThat(retired).containsExactly("pair session_ended");
	}

	@Test
	void aSessionOfTheNewSettingsServedOnTheOldVersionCarriesOnInTheNewOneUntilAReloadReplacesItsSettings() {
		VirtualServer old = find("pair");

		live.apply(BoundProperties.of(with(Map.of("virtual-servers.pair.prefix.beta", "beta_"))));
		VirtualServer changed = find("pair");
		AtomicReference<String> newerEnded = new AtomicReference<>();
		old.version().endedFor(changed.terms()).subscribe(newerEnded::set);

		assertThat(old.version().successorFor(changed.terms())).as("a session of the new settings (opened on a "
				+ "replica that applied them first) carries on").isSameAs(changed);
		assertThat(newerEnded).as("its streams and calls on the old version").hasNullValue();
		assertThat(old.version().successorFor(old.terms())).as("one of the settings replaced ends").isNull();
		assertThat(old.version().successorFor(null)).as("one stored without terms ends").isNull();
		assertThat(old.version().successorFor("{\"members\":[\"other\"]}"))
			.as("one of settings this replica never ran carries on").isSameAs(changed);
		assertThat(SessionServer.runningFor(old, changed.terms())).isSameAs(changed);

		live.apply(BoundProperties.of(with(Map.of("virtual-servers.pair.prefix.beta", "bb_"))));

		assertThat(newerEnded).as("once a reload replaced the settings it was opened under").hasValue("session_ended");
		assertThat(SessionServer.runningFor(old, changed.terms())).isNull();
	}

	@Test
	void aMemberDroppedThatStaysAServerIsAChange() {
		VirtualServer pair = find("pair");
		Map<String, String> alphaOnly = new HashMap<>(RUNNING);
		alphaOnly.remove("virtual-servers.pair.members[1]");
		alphaOnly.remove("virtual-servers.pair.prefix.beta");

		live.apply(BoundProperties.of(alphaOnly));

		assertThat(pair.version().isEnded()).isTrue();
		assertThat(retired).containsExactly("pair session_ended");
		VirtualServer alphaOnlyPair = find("pair");
		assertThat(pair.version().successorFor(alphaOnlyPair.terms())).as("no session carries on in a version "
				+ "without a member the old one had, not even one of the new settings (review 44j F1)").isNull();
		assertThat(pair.version().endedFor(alphaOnlyPair.terms()).block()).isEqualTo("session_ended");
		assertThat(SessionServer.runningFor(pair, alphaOnlyPair.terms())).isNull();
	}

	@Test
	void aRemovedVirtualServersVersionEndsWithServerRemoved() {
		VirtualServer every = find("every");
		Map<String, String> withoutEvery = new HashMap<>(RUNNING);
		withoutEvery.remove("virtual-servers.every.members[0]");

		live.apply(BoundProperties.of(withoutEvery));

		assertThat(find("every")).isNull();
		assertThat(every.version().endedFor(every.terms()).block()).isEqualTo("server_removed");
		assertThat(every.version().successorFor("{\"members\":[\"other\"]}")).as("no session carries on").isNull();
		assertThat(retired).containsExactly("every server_removed");
	}

	private VirtualServer find(String id) {
		return servers.find(live.current(), id);
	}

	private static Map<String, String> with(Map<String, String> more) {
		Map<String, String> properties = new HashMap<>(RUNNING);
		properties.putAll(more);
		return properties;
	}

}
