package dev.mcprelay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Request targets no URI parser accepts are percent-encoded, so they meet the relay's routing instead of an empty 400;
 * valid targets are left exactly as they are.
 */
class RequestTargetRepairTest {

	@ParameterizedTest(name = "{0} is left alone")
	@ValueSource(strings = { "/mcp/acme", "/mcp/%61cme?x=1&y=%20", "http://127.0.0.1:8080/mcp/acme", "/a;b=c/mcp",
			"/mcp/a.b~c_d-e", "*" })
	void validTargetsAreLeftAlone(String target) {
		assertThat(RequestTargetRepair.isValid(target)).isTrue();
	}

	@ParameterizedTest(name = "{0} becomes {1}")
	@CsvSource(delimiterString = " => ", value = { "/mcp\\acme => /mcp%5Cacme", "/mcp/a%zzb => /mcp/a%25zzb",
			"/mcp/a% => /mcp/a%25", "/a<b> => /a%3Cb%3E", "/a\"b => /a%22b", "/a{b} => /a%7Bb%7D", "/a[0] => /a%5B0%5D",
			"/a|b^c` => /a%7Cb%5Ec%60" })
	void invalidTargetsAreEncodedIntoValidOnes(String target, String repaired) {
		assertThat(RequestTargetRepair.isValid(target)).isFalse();
		assertThat(RequestTargetRepair.repaired(target)).isEqualTo(repaired);
		assertThat(URI.create("http://127.0.0.1" + RequestTargetRepair.repaired(target)))
			.as("a URI parser accepts the repaired target").isNotNull();
	}

}
