package dev.mcprelay.plugins;

import java.util.List;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Before the context is refreshed, checks every plugin jar ({@link PluginJars}): it can be read, it registers at
 * least one class, and each class it lists is on the class path and loads. The first that fails stops start-up with
 * {@link InvalidPluginException}, naming the jar. A class that loads but fails when Spring creates it is named by
 * {@link PluginFailureAnalyzer}. The plugins found are kept in the context ({@link #BEAN}) for {@link PluginReport}.
 */
public class PluginCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** The bean holding the checked plugins' list. */
	public static final String BEAN = "mcpRelayPlugins";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		List<PluginJars.Plugin> plugins = PluginJars.ofThisProcess(System.getenv());
		ClassLoader loader = context.getClassLoader() != null ? context.getClassLoader()
				: Thread.currentThread().getContextClassLoader();
		for (PluginJars.Plugin plugin : plugins) {
			check(plugin, loader);
		}
		if (!context.getBeanFactory().containsSingleton(BEAN)) {
			context.getBeanFactory().registerSingleton(BEAN, new LoadedPlugins(plugins));
		}
	}

	private static void check(PluginJars.Plugin plugin, ClassLoader loader) {
		if (plugin.unreadable() != null) {
			throw new InvalidPluginException(plugin.name(), plugin.unreadable());
		}
		if (plugin.classes().isEmpty()) {
			throw new InvalidPluginException(plugin.name(), "it registers no class: list its interceptors in "
					+ PluginJars.IMPORTS + ", one class name a line");
		}
		for (String name : plugin.classes()) {
			try {
				Class.forName(name, false, loader);
			}
			catch (ClassNotFoundException ex) {
				throw new InvalidPluginException(plugin.name(), "it registers " + name + ", which is not on the class "
						+ "path (not in the jar, or the jar is not in the plugin folder the relay was started with)", ex);
			}
			catch (LinkageError ex) {
				throw new InvalidPluginException(plugin.name(), name + " does not link against this relay ("
						+ ex + "): build the plugin against the mcp-relay-api of this relay's version", ex);
			}
		}
	}

	/** The plugin jars the relay was started with, checked. */
	public record LoadedPlugins(List<PluginJars.Plugin> plugins) {
	}

}
