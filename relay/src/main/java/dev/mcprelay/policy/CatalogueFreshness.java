package dev.mcprelay.policy;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.mcprelay.api.CallContext;
import dev.mcprelay.config.ServerProperties;
import dev.mcprelay.config.TimeoutProperties;
import dev.mcprelay.config.ToolsProperties;

/**
 * How old what {@link PublishedCatalogues} keeps of a server may be, and how long listing it again may take, as the
 * request's own configuration snapshot configures the server it addresses: its {@code tools.annotations-max-age} and
 * its {@link TimeoutProperties#ownWork()}; the defaults for a server the snapshot does not know. Read per request,
 * never from the current snapshot, so that a reload decides only the requests that begin after it. Holds no state but
 * the clock; safe from any thread.
 */
final class CatalogueFreshness {

	/** The timeouts of a server whose properties are unknown: the defaults. */
	private static final TimeoutProperties DEFAULT_TIMEOUTS = new TimeoutProperties(Duration.ofSeconds(60),
			Duration.ofSeconds(60), Duration.ofSeconds(30));

	/** How long a listing may take on a server whose properties are unknown: the default's {@code ownWork()}. */
	private static final Duration DEFAULT_WAIT = DEFAULT_TIMEOUTS.ownWork();

	/** The longest age nanoseconds count; {@link Duration#toNanos()} of a longer one overflows. */
	private static final Duration LONGEST_AGE = Duration.ofNanos(Long.MAX_VALUE);

	/** The properties of the server a request addresses, in the request's own snapshot ({@code null}: unknown). */
	private final Function<CallContext, ServerProperties> servers;

	/** The time definitions are seen and aged by: {@link System#nanoTime()}, but in tests. */
	private final LongSupplier clock;

	CatalogueFreshness(Function<CallContext, ServerProperties> servers, LongSupplier clock) {
		this.servers = servers;
		this.clock = clock;
	}

	/** The time, in nanoseconds, that what is seen now is marked with. */
	long now() {
		return clock.getAsLong();
	}

	/** The clock itself, for {@link PublishedItems#list} to mark a listing with. */
	LongSupplier clock() {
		return clock;
	}

	/**
	 * The age, in nanoseconds, past which what is kept of the server {@code context} addresses is listed again before
	 * a rule decides from it: its {@code tools.annotations-max-age} where {@code annotations} (a rule reads them), else
	 * {@link Long#MAX_VALUE} (of any age). An age longer than nanoseconds count (about 292 years) is
	 * {@link Long#MAX_VALUE}: no definition is ever that old.
	 */
	long maxAgeNanos(CallContext context, boolean annotations) {
		if (!annotations) {
			return Long.MAX_VALUE;
		}
		ServerProperties properties = servers.apply(context);
		Duration maxAge = properties == null ? ToolsProperties.DEFAULT_ANNOTATIONS_AGE
				: properties.tools().annotationsMaxAge();
		return maxAge.compareTo(LONGEST_AGE) >= 0 ? Long.MAX_VALUE : maxAge.toNanos();
	}

	/** Whether what was seen at {@code seenAt} is at most {@code maxAge} nanoseconds old. */
	boolean young(long seenAt, long maxAge) {
		return maxAge == Long.MAX_VALUE || clock.getAsLong() - seenAt <= maxAge;
	}

	/**
	 * How long listing the server {@code context} addresses again may take: its {@link TimeoutProperties#ownWork()},
	 * strictly inside the bound the request runs under; the default's for a server the snapshot does not know.
	 */
	Duration listingBound(CallContext context) {
		ServerProperties properties = servers.apply(context);
		return properties == null ? DEFAULT_WAIT : properties.timeouts().ownWork();
	}

	/**
	 * The part {@code 1/divisor} of the bound a request to the server {@code context} addresses runs under (its
	 * {@code timeouts.non-streaming}; the default's for a server the snapshot does not know).
	 */
	Duration shareOfRequestBound(CallContext context, int divisor) {
		ServerProperties properties = servers.apply(context);
		return (properties == null ? DEFAULT_TIMEOUTS : properties.timeouts()).nonStreaming().dividedBy(divisor);
	}

}
