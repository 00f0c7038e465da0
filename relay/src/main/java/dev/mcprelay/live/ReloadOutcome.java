package dev.mcprelay.live;

import java.util.List;

import dev.mcprelay.config.ConfigurationProblem;

/**
 * What one reload did, as the actuator endpoint answers and {@code mcp_relay_config_reloads_total{outcome}} counts it.
 *
 * @param outcome {@code applied}, {@code refused} (a problem: nothing applied), {@code unchanged} (the bound values are
 * the running ones), or {@code restart_required} (a value that cannot change live differs from the running one: it is
 * not applied, everything else is)
 * @param checksum the checksum of the configuration running after the reload
 * @param changed what changed, by property path and id, never a value
 * @param restartRequired the properties that changed but need a restart
 * @param problems why a refused reload was refused, by property path
 */
public record ReloadOutcome(String outcome, String checksum, List<String> changed, List<String> restartRequired,
		List<ConfigurationProblem> problems) {

	public static final String APPLIED = "applied";

	public static final String REFUSED = "refused";

	public static final String UNCHANGED = "unchanged";

	public static final String RESTART_REQUIRED = "restart_required";

	/** Every outcome, for counting each from 0. */
	static final List<String> ALL = List.of(APPLIED, REFUSED, UNCHANGED, RESTART_REQUIRED);

}
