package dev.mcprelay.plugins;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

import dev.mcprelay.api.Interceptor;
import dev.mcprelay.chain.Stage;

/**
 * Logs, once every bean is made, the plugins the relay loaded and the interceptors each brought, with their stages:
 * {@code Plugin tenant-policy-1.0.0.jar: require-tenant (user-request), tenant-tool-calls (tools-call-request)}.
 */
@Component
class PluginReport implements SmartInitializingSingleton {

	private static final Logger log = LoggerFactory.getLogger(PluginReport.class);

	private final ObjectProvider<PluginCheck.LoadedPlugins> plugins;

	private final ObjectProvider<Interceptor> interceptors;

	PluginReport(ObjectProvider<PluginCheck.LoadedPlugins> plugins, ObjectProvider<Interceptor> interceptors) {
		this.plugins = plugins;
		this.interceptors = interceptors;
	}

	@Override
	public void afterSingletonsInstantiated() {
		PluginCheck.LoadedPlugins loaded = plugins.getIfAvailable();
		if (loaded == null || loaded.plugins().isEmpty()) {
			log.info("Plugins: none (no jar in loader.path / LOADER_PATH)");
			return;
		}
		List<Interceptor> all = interceptors.orderedStream().toList();
		for (PluginJars.Plugin plugin : loaded.plugins()) {
			List<String> described = new ArrayList<>();
			for (Interceptor interceptor : all) {
				if (plugin.classes().contains(interceptor.getClass().getName())) {
					described.add(interceptor.name() + " (" + String.join(", ", stagesOf(interceptor)) + ")");
				}
			}
			log.info("Plugin {}: {}", plugin.name(), described.isEmpty() ? "no interceptor" : String.join(", ", described));
		}
	}

	private static List<String> stagesOf(Interceptor interceptor) {
		return Stage.ALL.stream().filter(stage -> stage.interceptorType().isInstance(interceptor)).map(Stage::name).toList();
	}

}
