package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.proxy.SpringRequestHeaders;

/**
 * {@code request.headers} made on demand ({@link HeaderValues}) is the map it was made whole before: names in lower
 * case, values joined, credentials never in it, whether one name is looked up or the whole map is read.
 */
class HeaderValuesTest {

	@Test
	void aLookUpReadsWhatTheWholeMapHolds() {
		HttpHeaders spring = new HttpHeaders();
		spring.add("X-Tenant", "acme");
		spring.add("X-Env", "prod");
		spring.add("X-Env", "eu");
		spring.add("Authorization", "Bearer secret");
		spring.add("Cookie", "session=secret");
		spring.add("X-Api-Key", "secret");
		spring.add("User-Agent", "bench");
		HeaderValues headers = new HeaderValues(SpringRequestHeaders.of(spring));
		Map<String, String> whole = Map.of("x-tenant", "acme", "x-env", "prod, eu", "user-agent", "bench");

		for (String name : List.of("x-tenant", "x-env", "user-agent", "authorization", "cookie", "x-api-key",
				"X-Tenant", "x-absent")) {
			assertThat(headers.get(name)).as(name).isEqualTo(whole.get(name));
			assertThat(headers.containsKey(name)).as(name).isEqualTo(whole.containsKey(name));
		}
		assertThat(headers).as("read whole").isEqualTo(whole);
		assertThat(headers.size()).isEqualTo(3);
		assertThat(headers.get("x-env")).as("after it was read whole").isEqualTo("prod, eu");
	}

}
