package dev.mcprelay.policy;

import java.util.Map;

import dev.mcprelay.api.ToolsCallRequest;

/**
 * A {@code tools/call}'s arguments as the policies read them ({@code mcp.arguments}, as {@link CelValues}): the call's
 * own tree read in place ({@link ToolsCallRequest#argumentsView()}), each value converted when an expression reads it
 * ({@link CelMapView}), so that a call whose policies read no argument copies and decodes none, and one that reads
 * {@code mcp.arguments.message} decodes that one. CEL sees the values {@link ToolsCallRequest#arguments()} decodes,
 * converted (integers as {@code long}, other numbers as {@code double}, a JSON {@code null} left out); params that do
 * not decode as a call's are refused as it refuses them ({@code -32602}, invalid params). Nothing read through it can
 * change the call: the views are read-only all the way down.
 */
final class CallArguments {

	private CallArguments() {
	}

	/**
	 * The arguments of {@code call}, as CEL values read in place; empty when it has none. They read the call as it is
	 * when read: used only while its policies decide it.
	 */
	static Map<String, Object> of(ToolsCallRequest call) {
		return CelMapView.of(call.argumentsView());
	}

}
