package dev.mcprelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The API holds what an interceptor author uses and nothing of the engine: no class of it refers to Spring, to Netty,
 * or to a package of the relay outside {@code dev.mcprelay.api} (a class file names every class it refers to, so its
 * bytes tell).
 */
class ApiBoundaryTest {

	private static final List<String> FORBIDDEN = List.of("org/springframework/", "io/netty/", "reactor/netty/",
			"dev/mcprelay/chain/", "dev/mcprelay/jsonrpc/", "dev/mcprelay/intercept/", "dev/mcprelay/security/",
			"dev/mcprelay/proxy/", "dev/mcprelay/config/", "dev/mcprelay/test/");

	@Test
	void noApiClassRefersToTheEngineOrToSpringOrNetty() throws IOException {
		List<String> offences = new ArrayList<>();
		List<Path> classes;
		try (Stream<Path> files = Files.walk(Path.of("target", "classes"))) {
			classes = files.filter(file -> file.toString().endsWith(".class")).toList();
		}
		assertThat(classes).as("the API's compiled classes").hasSizeGreaterThan(50);
		for (Path file : classes) {
			String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
			for (String forbidden : FORBIDDEN) {
				if (bytes.contains(forbidden)) {
					offences.add(file.getFileName() + " refers to " + forbidden);
				}
			}
		}
		assertThat(offences).isEmpty();
	}

}
