package dev.mcprelay.intercept;

import java.util.List;
import java.util.function.Function;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Maps each item of a list to one value, one item after the other (the next starts when the previous completed),
 * keeping the order: how every message of a body, and every answer the relay gives to a batch, goes through the
 * stages. A list of one, by far the most common, takes no {@code Flux}.
 */
public final class InOrder {

	private InOrder() {
	}

	/**
	 * @param each must produce exactly one value per item
	 * @return the values, in the items' order; an empty list for no items
	 */
	public static <T, R> Mono<List<R>> map(List<T> items, Function<? super T, Mono<R>> each) {
		if (items.size() == 1) {
			return Mono.defer(() -> each.apply(items.get(0))).map(List::of);
		}
		return Flux.fromIterable(items).concatMap(each).collectList();
	}

}
