package dev.mcprelay.plugins;

/** A plugin jar the relay cannot load; start-up stops, naming the jar and the reason ({@link PluginFailureAnalyzer}). */
public class InvalidPluginException extends RuntimeException {

	private final String jar;

	private final String reason;

	public InvalidPluginException(String jar, String reason) {
		this(jar, reason, null);
	}

	public InvalidPluginException(String jar, String reason, Throwable cause) {
		super("Plugin " + jar + " could not be loaded: " + reason, cause);
		this.jar = jar;
		this.reason = reason;
	}

	/** The jar's file name. */
	public String jar() {
		return jar;
	}

	/** What is wrong with it, in a sentence. */
	public String reason() {
		return reason;
	}

}
