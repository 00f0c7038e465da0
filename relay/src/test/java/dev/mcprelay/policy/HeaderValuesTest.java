package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.mcprelay.proxy.SpringRequestHeaders;

/**
 * {@code request.headers} made on demand ({@link HeaderValues}) is the map it was made whole before: names in lower
 * case, a value repeated on several lines read once, credentials never in it, whether one name is looked up or the
 * whole map is read; a header whose lines differ cannot be read either way (review 43e F2).
 */
class HeaderValuesTest {

	@Test
	void aLookUpReadsWhatTheWholeMapHolds() {
		HttpHeaders spring = new HttpHeaders();
		spring.add("X-Tenant", "acme");
		spring.add("X-Env", "prod, eu");
		spring.add("X-Region", "eu");
		spring.add("X-Region", "eu");
		spring.add("Authorization", "Bearer secret");
		spring.add("Cookie", "session=secret");
		spring.add("X-Api-Key", "secret");
		spring.add("User-Agent", "bench");
		HeaderValues headers = new HeaderValues(SpringRequestHeaders.of(spring));
		Map<String, String> whole = Map.of("x-tenant", "acme", "x-env", "prod, eu", "x-region", "eu",
				"user-agent", "bench");

		for (String name : List.of("x-tenant", "x-env", "user-agent", "authorization", "cookie", "x-api-key",
				"x-region", "X-Tenant", "x-absent")) {
			assertThat(headers.get(name)).as(name).isEqualTo(whole.get(name));
			assertThat(headers.containsKey(name)).as(name).isEqualTo(whole.containsKey(name));
		}
		assertThat(headers).as("read whole").isEqualTo(whole);
		assertThat(headers.size()).isEqualTo(4);
		assertThat(headers.get("x-env")).as("after it was read whole").isEqualTo("prod, eu");
	}

	@Test
	void aHeaderWhoseLinesDifferCannotBeRead() {
		for (List<String> lines : List.of(List.of("evil", "good"), List.of("good", "evil"))) {
			HttpHeaders spring = new HttpHeaders();
			spring.addAll("X-Tenant", lines);
			spring.add("X-Env", "prod");
			HeaderValues headers = new HeaderValues(SpringRequestHeaders.of(spring));

			assertThat(headers.get("x-env")).as("another header").isEqualTo("prod");
			org.assertj.core.api.Assertions.assertThatThrownBy(() -> headers.get("x-tenant")).as(lines.toString())
				.isInstanceOf(HeaderValues.Conflicting.class)
				.hasMessage(null);
			org.assertj.core.api.Assertions.assertThatThrownBy(() -> headers.containsKey("x-tenant"))
				.isInstanceOf(HeaderValues.Conflicting.class);
			org.assertj.core.api.Assertions.assertThatThrownBy(headers::size).as("read whole")
				.isInstanceOf(HeaderValues.Conflicting.class);
		}
	}

}
