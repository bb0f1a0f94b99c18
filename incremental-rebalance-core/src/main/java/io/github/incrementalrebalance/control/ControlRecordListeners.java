package io.github.incrementalrebalance.control;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is told of the control records read as news. Listeners are added from any thread and told on the reader's
 * thread, where one that fails is logged and the others are still told.
 */
final class ControlRecordListeners {

	private static final Logger logger = LoggerFactory.getLogger(ControlRecordListeners.class);

	private final List<Consumer<ControlRecord>> listeners = new CopyOnWriteArrayList<>();

	void add(Consumer<ControlRecord> listener) {
		this.listeners.add(listener);
	}

	void remove(Consumer<ControlRecord> listener) {
		this.listeners.remove(listener);
	}

	void tell(ControlRecord record) {
		for (Consumer<ControlRecord> listener : this.listeners) {
			try {
				listener.accept(record);
			}
			catch (RuntimeException ex) {
				logger.warn("Control record listener failed on {}", record.key(), ex);
			}
		}
	}

}
