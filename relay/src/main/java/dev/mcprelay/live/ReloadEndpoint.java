package dev.mcprelay.live;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.stereotype.Component;

/**
 * {@code POST /actuator/reload}: reloads the configuration now, as a changed file does ({@link ConfigurationReloader}),
 * and answers what the reload did ({@link ReloadOutcome}: its outcome, the running checksum, what changed, what needs a
 * restart, the problems of a refused one). Exposed with the other actuator endpoints and secured as they are: in
 * {@code api-key} and {@code jwt} mode only a caller marked for management may call it. The reload runs off the event
 * loop (Spring runs a blocking operation of an endpoint on a worker thread).
 */
@Component
@Endpoint(id = "reload")
public class ReloadEndpoint {

	private final ConfigurationReloader reloader;

	ReloadEndpoint(ConfigurationReloader reloader) {
		this.reloader = reloader;
	}

	@WriteOperation
	public ReloadOutcome reload() {
		return reloader.reload("the actuator");
	}

}
