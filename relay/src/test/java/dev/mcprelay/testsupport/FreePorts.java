package dev.mcprelay.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Several free loopback ports at once, all different (one free port asked for twice may come back twice). */
final class FreePorts {

	private FreePorts() {
	}

	static List<Integer> distinct(int count) {
		Set<Integer> ports = new LinkedHashSet<>();
		while (ports.size() < count) {
			ports.add(TestUpstreams.freePort());
		}
		return new ArrayList<>(ports);
	}

}
