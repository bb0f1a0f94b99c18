package io.github.incrementalrebalance.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The application sets keys under {@code incremental-rebalance.} that the starter does not know, and
 * {@code incremental-rebalance.fail-on-unknown-keys} asks to refuse the start for them.
 */
public class UnknownKeysException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final transient List<UnknownKeys.Unknown> unknown;

	UnknownKeysException(List<UnknownKeys.Unknown> unknown) {
		super(unknown.stream().map(UnknownKeys.Unknown::describe).collect(Collectors.joining("; ")));
		this.unknown = List.copyOf(unknown);
	}

	List<UnknownKeys.Unknown> unknown() {
		return this.unknown;
	}

}
