package dev.mcprelay.live;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import dev.mcprelay.config.BoundPropertyTree;
import dev.mcprelay.config.RelayProperties;

/**
 * The checksum of a bound configuration: the first 16 hex digits of the SHA-256 of every value under
 * {@code mcp-relay}, as bound (variables resolved, defaults applied), one {@code path=value} line each, sorted. Two
 * replicas that bound the same values have the same checksum, whichever file, variable or default each value came
 * from; a rotated secret changes it. It is one-way and truncated: it names a configuration, it reveals none of it.
 */
public final class ConfigurationChecksum {

	private ConfigurationChecksum() {
	}

	public static String of(RelayProperties properties) {
		List<String> lines = new ArrayList<>();
		BoundPropertyTree.walk("mcp-relay", properties, (path, value) -> lines.add(path + "=" + value));
		lines.sort(null);
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			for (String line : lines) {
				digest.update(line.getBytes(StandardCharsets.UTF_8));
				digest.update((byte) '\n');
			}
			return HexFormat.of().formatHex(digest.digest(), 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
		}
	}

}
