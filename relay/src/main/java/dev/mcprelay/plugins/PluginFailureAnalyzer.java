package dev.mcprelay.plugins;

import java.util.List;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Says which plugin stopped start-up and why: an {@link InvalidPluginException}, or any failure whose causes name a
 * class a plugin jar registers (its constructor threw, it needs a bean the relay does not have, it was built against
 * another API). Other failures are left to the other analyzers.
 */
public class PluginFailureAnalyzer implements FailureAnalyzer {

	@Override
	public FailureAnalysis analyze(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InvalidPluginException invalid) {
				return analysis(invalid.jar(), invalid.reason(), failure);
			}
		}
		List<PluginJars.Plugin> plugins = PluginJars.ofThisProcess(System.getenv());
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = String.valueOf(cause.getMessage());
			for (PluginJars.Plugin plugin : plugins) {
				for (String name : plugin.classes()) {
					if (message.contains(name)) {
						return analysis(plugin.name(), name + " failed: " + rootMessage(failure), failure);
					}
				}
			}
		}
		return null;
	}

	private static FailureAnalysis analysis(String jar, String reason, Throwable failure) {
		return new FailureAnalysis("Plugin " + jar + " could not be loaded: " + reason,
				"Fix the plugin or take " + jar + " out of the plugin folder (loader.path / LOADER_PATH; /app/plugins in "
						+ "the image), then start the relay again.", failure);
	}

	private static String rootMessage(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
	}

}
