package dev.mcprelay.policy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.stereotype.Component;

import dev.mcprelay.Sha256;
import dev.mcprelay.api.Caller;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The bound on the relay's own listings of a server's whole list, over every view of it and every feature that lists
 * (the policies' catalogues, {@link PublishedCatalogues}; tool search's): a caller who controls a header of its view
 * (one configured {@code from-request-header}, or one an interceptor sets from a header it sends) could otherwise make
 * every request a listing of the server's whole catalogue.
 * <ul>
 * <li>At most {@value #MAX_RUNNING} listings of one server run at once; one past that waits its turn (first come,
 * first served) for at most the wait it is given (the server's {@code timeouts.non-streaming}), and is then
 * {@link Refused}.</li>
 * <li>At most {@value #MAX_PER_CALLER} listings of one caller (its kind and id; for a token also its issuer and
 * subject), running or waiting, per server: one more is {@link Refused} at once, so that one caller varying its view
 * fills neither the server's listings nor the queue, and other callers' listings wait behind two of its at most.</li>
 * </ul>
 * Each feature lists one view at a time (later requests of a view wait for its listing), so a caller's listings are its
 * views. A waiting listing that is cancelled, or that times out, leaves the queue; a listing that ends, however it
 * ends, hands its place to the first waiting one. Thread-safe; nothing blocks.
 */
@Component
public class ServerListings {

	/** The most listings of one server that run at once. */
	public static final int MAX_RUNNING = 4;

	/** The most listings of one caller, running or waiting, per server. */
	public static final int MAX_PER_CALLER = 2;

	private final Map<String, Gate> gates = new ConcurrentHashMap<>();

	/**
	 * {@code listing}, run once the server {@code server} has room for it, for {@code caller}; {@link Refused} when the
	 * caller has {@value #MAX_PER_CALLER} listings of the server running or waiting already, or when no room was made
	 * within {@code wait}. Its place is given up when it ends, fails or is cancelled.
	 */
	public <T> Mono<T> bounded(String server, Caller caller, Duration wait, Supplier<Mono<T>> listing) {
		return Mono.defer(() -> {
			Gate gate = gates.computeIfAbsent(server, any -> new Gate());
			Ticket ticket = gate.enter(callerOf(caller));
			if (ticket == null) {
				return Mono.error(new Refused("is being listed for too many views of one caller at once ("
						+ MAX_PER_CALLER + "); try again shortly"));
			}
			return ticket.turn.asMono()
				.timeout(wait, Mono.error(() -> new Refused("is being listed for too many views at once ("
						+ MAX_RUNNING + "), and no listing ended within " + wait + "; try again shortly")))
				.then(Mono.defer(listing))
				.doFinally(signal -> gate.leave(ticket));
		});
	}

	/** Who a listing is for: the caller, as its views tell it apart (a digest, never the credential's claims). */
	private static String callerOf(Caller caller) {
		Caller who = caller == null ? Caller.ANONYMOUS : caller;
		String id = who.kind().name() + '\n' + who.id();
		if (who.kind() == Caller.Kind.JWT) {
			id += '\n' + who.claimAsText("iss") + '\n' + who.claimAsText("sub");
		}
		return Sha256.hex(id);
	}

	/** A listing refused: the caller has too many, or none ended in time. */
	public static final class Refused extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Refused(String why) {
			super(why, null, false, false);
		}

		/** Why, in words that go after "the list of server 's' ". */
		public String why() {
			return getMessage();
		}

	}

	/** One listing's place: its turn comes when it may run. */
	private static final class Ticket {

		final String caller;

		final Sinks.One<Void> turn = Sinks.one();

		boolean running;

		boolean left;

		Ticket(String caller) {
			this.caller = caller;
		}

	}

	/** One server's listings: how many run, who waits (in order), and each caller's count. */
	private static final class Gate {

		private int running;

		private final ArrayDeque<Ticket> waiting = new ArrayDeque<>();

		private final Map<String, Integer> perCaller = new HashMap<>();

		/** A ticket for {@code caller}, its turn come if there is room; {@code null} if the caller has too many. */
		Ticket enter(String caller) {
			Ticket ticket = new Ticket(caller);
			synchronized (this) {
				int held = perCaller.getOrDefault(caller, 0);
				if (held >= MAX_PER_CALLER) {
					return null;
				}
				perCaller.put(caller, held + 1);
				if (running < MAX_RUNNING) {
					running++;
					ticket.running = true;
				}
				else {
					waiting.add(ticket);
				}
			}
			if (ticket.running) {
				ticket.turn.tryEmitEmpty();
			}
			return ticket;
		}

		/** {@code ticket}'s listing ended (or never ran): its place goes to the first waiting, or is freed. */
		void leave(Ticket ticket) {
			Ticket next = null;
			synchronized (this) {
				if (ticket.left) {
					return;
				}
				ticket.left = true;
				perCaller.computeIfPresent(ticket.caller, (caller, held) -> held > 1 ? held - 1 : null);
				if (!ticket.running) {
					waiting.remove(ticket);
					return;
				}
				next = waiting.poll();
				if (next == null) {
					running--;
				}
				else {
					next.running = true;
				}
			}
			if (next != null) {
				next.turn.tryEmitEmpty();
			}
		}

	}

}
