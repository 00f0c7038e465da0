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
 * (the policies' catalogues, {@link PublishedCatalogues}, and the {@code Mcp-Param-*} headers they check or the relay
 * writes; tool search's; a virtual server's of its members): a caller who controls a header of its view (one configured
 * {@code from-request-header}, or one an interceptor sets from a header it sends) could otherwise make every request a
 * listing of the server's whole catalogue.
 * <ul>
 * <li>At most {@value #MAX_RUNNING} listings of one server run at once; one past that waits its turn (first come,
 * first served) in the server's queue.</li>
 * <li>At most {@value #MAX_PER_CALLER} listings of one caller (its kind and id; for a token also its issuer and
 * subject) are running or in the server's queue, per server, so that one caller varying its view fills neither the
 * server's listings nor its queue: other callers' listings wait behind two of its at most. A caller's listing past
 * those waits for a turn of the caller's own (first come, first served): when one of its listings ends it enters the
 * server's queue, behind the other callers' already there (review 43l L-3: refused at once, a caller's third
 * concurrent first call in a fresh view went upstream without the {@code Mcp-Param-*} header of the argument the relay
 * injected, and a 2026-07-28 server refused it).</li>
 * <li>At most {@value #MAX_WAITING_PER_CALLER} listings of one caller wait so, per server: one more is {@link Refused}
 * at once ("too many views of one caller at once"), so that what one caller holds stays bounded.</li>
 * </ul>
 * A listing waits in both queues together for at most the wait it is given (half the listing bound for the policies'
 * catalogues, the server's {@code timeouts.non-streaming} for tool search's and a virtual server's), and is then
 * {@link Refused}; a request that waits for less (one whose {@code Mcp-Param-*} headers the relay writes waits a tenth
 * of {@code timeouts.non-streaming}) goes on before, without the listing, which keeps its place for the view's next
 * requests ({@link PublishedDeclarations#toWrite}). A view's requests for one name join one listing, and a whole
 * listing of the view in flight; requests for distinct names the view has not seen list each until a page names
 * theirs ({@code PublishedItems}), so one view of a caller may hold several of its places, and its listings past them
 * wait their turns as any of the caller's (review 43n M-1: refused at once, about half of an agent's parallel first
 * calls were refused). A waiting listing that is cancelled (every request
 * that waited for it gone) or times out leaves its queue and frees its place; a listing that ends, however it ends,
 * hands its place to the first waiting one. Thread-safe; nothing blocks.
 */
@Component
public class ServerListings {

	/** The most listings of one server that run at once. */
	public static final int MAX_RUNNING = 4;

	/** The most listings of one caller running or in the server's queue, per server. */
	public static final int MAX_PER_CALLER = 2;

	/** The most listings of one caller waiting for a turn of its own (past {@link #MAX_PER_CALLER}), per server. */
	public static final int MAX_WAITING_PER_CALLER = 6;

	private final Map<String, Gate> gates = new ConcurrentHashMap<>();

	/**
	 * {@code listing}, run once the server {@code server} has room for it, for {@code caller}; {@link Refused} at once
	 * when the caller has {@value #MAX_PER_CALLER} listings of the server running or queued and
	 * {@value #MAX_WAITING_PER_CALLER} more waiting already, or when no turn came within {@code wait}. Its place is
	 * given up when it ends, fails or is cancelled.
	 */
	public <T> Mono<T> bounded(String server, Caller caller, Duration wait, Supplier<Mono<T>> listing) {
		return Mono.defer(() -> {
			Gate gate = gates.computeIfAbsent(server, any -> new Gate());
			Ticket ticket = gate.enter(callerOf(caller));
			if (ticket == null) {
				return Mono.error(new Refused("is being listed for too many views of one caller at once ("
						+ MAX_PER_CALLER + ", and " + MAX_WAITING_PER_CALLER + " more waiting); try again shortly"));
			}
			return ticket.turn.asMono()
				.timeout(wait, Mono.error(() -> new Refused(gate.late(ticket, wait))))
				.then(Mono.defer(listing))
				.doFinally(signal -> gate.leave(ticket));
		});
	}

	/** How many listings of {@code server} wait for a turn of their caller's own (past {@link #MAX_PER_CALLER}). */
	int waitingForTheirCallersTurn(String server) {
		Gate gate = gates.get(server);
		return gate == null ? 0 : gate.waitingForTheirCallersTurn();
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

		/** In the server's queue or running (counted in the caller's {@link #MAX_PER_CALLER}). */
		boolean admitted;

		boolean running;

		boolean left;

		Ticket(String caller) {
			this.caller = caller;
		}

	}

	/** One caller's listings of a server: how many are admitted, and which wait for a turn of the caller's own. */
	private static final class CallerQueue {

		int admitted;

		final ArrayDeque<Ticket> waiting = new ArrayDeque<>();

	}

	/** One server's listings: how many run, who waits (in order), and each caller's. */
	private static final class Gate {

		private int running;

		private final ArrayDeque<Ticket> waiting = new ArrayDeque<>();

		private final Map<String, CallerQueue> callers = new HashMap<>();

		/**
		 * A ticket for {@code caller}, its turn come if there is room; {@code null} if the caller has too many waiting
		 * already.
		 */
		Ticket enter(String caller) {
			Ticket ticket = new Ticket(caller);
			boolean runs;
			synchronized (this) {
				CallerQueue own = callers.computeIfAbsent(caller, any -> new CallerQueue());
				if (own.admitted < MAX_PER_CALLER) {
					runs = admit(own, ticket);
				}
				else if (own.waiting.size() < MAX_WAITING_PER_CALLER) {
					own.waiting.add(ticket);
					runs = false;
				}
				else {
					return null;
				}
			}
			if (runs) {
				ticket.turn.tryEmitEmpty();
			}
			return ticket;
		}

		/**
		 * {@code ticket}'s listing ended (or never ran): its place goes to the first waiting, or is freed; the caller's
		 * first waiting listing enters the server's queue (or runs).
		 */
		void leave(Ticket ticket) {
			Ticket next = null;
			Ticket own = null;
			synchronized (this) {
				if (ticket.left) {
					return;
				}
				ticket.left = true;
				CallerQueue queue = callers.get(ticket.caller);
				if (!ticket.admitted) {
					queue.waiting.remove(ticket);
					forgetIfIdle(ticket.caller, queue);
					return;
				}
				queue.admitted--;
				if (ticket.running) {
					next = waiting.poll();
					if (next == null) {
						running--;
					}
					else {
						next.running = true;
					}
				}
				else {
					waiting.remove(ticket);
				}
				Ticket first = queue.waiting.poll();
				if (first != null && admit(queue, first)) {
					own = first;
				}
				forgetIfIdle(ticket.caller, queue);
			}
			if (next != null) {
				next.turn.tryEmitEmpty();
			}
			if (own != null) {
				own.turn.tryEmitEmpty();
			}
		}

		synchronized int waitingForTheirCallersTurn() {
			return callers.values().stream().mapToInt(queue -> queue.waiting.size()).sum();
		}

		/** Why {@code ticket}, still waiting after {@code wait}, is refused: which queue it was in. */
		synchronized String late(Ticket ticket, Duration wait) {
			return ticket.admitted ? "is being listed for too many views at once (" + MAX_RUNNING
					+ "), and no listing ended within " + wait + "; try again shortly"
					: "is being listed for too many views of one caller at once (" + MAX_PER_CALLER
							+ "), and none of them ended within " + wait + "; try again shortly";
		}

		/** Admits {@code ticket} for its caller: it runs if the server has room (true), else joins the server's queue. */
		private boolean admit(CallerQueue queue, Ticket ticket) {
			queue.admitted++;
			ticket.admitted = true;
			if (running < MAX_RUNNING) {
				running++;
				ticket.running = true;
				return true;
			}
			waiting.add(ticket);
			return false;
		}

		private void forgetIfIdle(String caller, CallerQueue queue) {
			if (queue.admitted == 0 && queue.waiting.isEmpty()) {
				callers.remove(caller);
			}
		}

	}

}
