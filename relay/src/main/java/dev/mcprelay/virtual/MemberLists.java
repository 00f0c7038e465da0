package dev.mcprelay.virtual;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.mcprelay.jsonrpc.JsonRpcParser;

/**
 * The lists a virtual server tells its clients have changed ({@code tools}, {@code prompts}, {@code resources}), and
 * which of them each member offers: the capabilities it answered {@code initialize} with when it last joined a virtual
 * session on this replica ({@link MemberJoin}), by member id. What tells a session's client that a list changed asks
 * here whether a member that joined or left the virtual server bears on it ({@link #mayOffer}); a member this replica
 * has not seen join may offer any.
 *
 * <p>Thread-safe; never blocks. Holds one small set per member id the relay has joined.
 */
@Component
class MemberLists {

	/** The lists a client can be told changed, in the order it is told them. */
	static final List<String> LISTS = List.of("tools", "prompts", "resources");

	private final Map<String, Set<String>> offered = new ConcurrentHashMap<>();

	/** The lists {@code initializeResult} announces: those of {@link #LISTS} its {@code capabilities} name. */
	static Set<String> of(ObjectNode initializeResult) {
		Set<String> lists = new LinkedHashSet<>();
		for (String list : LISTS) {
			if (initializeResult.path("capabilities").has(list)) {
				lists.add(list);
			}
		}
		return lists;
	}

	/** {@code member} joined a session, answering {@code initialize} with {@code initializeResult}. */
	void joined(String member, ObjectNode initializeResult) {
		offered.put(member, Set.copyOf(of(initializeResult)));
	}

	/** Whether {@code member} offers {@code list}, as it last joined here; {@code true} when it has not joined here. */
	boolean mayOffer(String member, String list) {
		Set<String> lists = offered.get(member);
		return lists == null || lists.contains(list);
	}

	/**
	 * What tells a session's client that its lists may have changed: {@code notifications/<list>/list_changed} of each
	 * list it was {@code announced} (in its {@code initialize} result) that {@code mayHaveChanged}; of the tool list
	 * only for a session stored without what it announced ({@code null}).
	 */
	static List<ObjectNode> changed(Set<String> announced, Predicate<String> mayHaveChanged) {
		List<ObjectNode> told = new ArrayList<>();
		for (String list : LISTS) {
			if (announced == null ? list.equals("tools") : announced.contains(list) && mayHaveChanged.test(list)) {
				told.add(listChanged(list));
			}
		}
		return told;
	}

	/** The notification that {@code list} changed ({@code notifications/<list>/list_changed}). */
	static ObjectNode listChanged(String list) {
		ObjectNode changed = JsonRpcParser.mapper().createObjectNode();
		changed.put("jsonrpc", "2.0");
		changed.put("method", "notifications/" + list + "/list_changed");
		return changed;
	}

}
