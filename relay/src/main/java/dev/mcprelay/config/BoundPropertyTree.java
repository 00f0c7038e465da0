package dev.mcprelay.config;

import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * The walk over a bound configuration tree, down to its values: a record by each of its components (named in dashed
 * form, as an operator writes it), a map by each key, a list by each index, and anything else (text, numbers,
 * durations, sizes, enums) as a value of its own. It is walked from the bound record itself, so a property added
 * tomorrow is walked the day it exists.
 *
 * <p>It runs when a caller asks, on the caller's thread, once per call: when the configuration is checked for variables
 * that are not set ({@link UnresolvedVariables}), when a configuration's checksum is taken ({@code ConfigurationChecksum})
 * and when a reload splits a configuration into units of change ({@code BoundSettings}, which {@code LiveScope} and
 * {@code ConfigurationChanges} compare). It changes nothing: it reads each record component through its accessor, and
 * a {@code null} (nothing bound there) is passed over with all it would hold. Values are visited in the tree's order
 * (components as declared, maps and lists in their own order).
 *
 * <p>On failure: a component whose accessor cannot be called ends the walk with an {@link IllegalStateException}
 * naming it; an exception the caller's visitor throws ends the walk and reaches the caller as it is.
 */
public final class BoundPropertyTree {

	/** The name the tree's values have in property sources: the relay's own properties. */
	private static final ConfigurationPropertyName RELAY = ConfigurationPropertyName.of("mcp-relay");

	private BoundPropertyTree() {
	}

	/**
	 * Calls {@code leaf} with the property path (beginning with {@code path}) and value of every value under
	 * {@code value} that is no record, map or list (text, numbers, durations, sizes, enums).
	 */
	public static void walk(String path, Object value, BiConsumer<String, Object> leaf) {
		walk(path, RELAY, value, (at, name, leafValue) -> leaf.accept(at, leafValue));
	}

	/** A value of the tree: its path as printed, its name as property sources know it, and the value. */
	interface Leaf {

		void accept(String path, ConfigurationPropertyName name, Object value);

	}

	/**
	 * Calls {@code leaf} for every value under {@code value} as {@link #walk(String, Object, BiConsumer)} does, with
	 * its name as property sources know it too (beginning with {@code name}: a map's key and a list's index in
	 * brackets), to look it up as written.
	 */
	static void walk(String path, ConfigurationPropertyName name, Object value, Leaf leaf) {
		if (value == null) {
			return;
		}
		if (value instanceof Map<?, ?> map) {
			map.forEach((key, entry) -> walk(path + "." + key, name.append("[" + key + "]"), entry, leaf));
		}
		else if (value instanceof List<?> list) {
			for (int i = 0; i < list.size(); i++) {
				walk(path + "[" + i + "]", name.append("[" + i + "]"), list.get(i), leaf);
			}
		}
		else if (value.getClass().isRecord()) {
			for (RecordComponent component : value.getClass().getRecordComponents()) {
				String dashed = UnknownRelayProperties.dashed(component.getName());
				walk(path + "." + dashed, name.append(dashed), read(component, value), leaf);
			}
		}
		else {
			leaf.accept(path, name, value);
		}
	}

	private static Object read(RecordComponent component, Object record) {
		try {
			var accessor = component.getAccessor();
			accessor.trySetAccessible();
			return accessor.invoke(record);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot read " + component, ex);
		}
	}

}
