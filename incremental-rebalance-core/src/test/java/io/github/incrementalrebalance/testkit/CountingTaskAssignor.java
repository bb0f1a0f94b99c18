package io.github.incrementalrebalance.testkit;

import java.util.Map;

import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;

/**
 * Kafka's public sticky assignor, counting its calls in the {@link AssignorCalls} found in the Streams config. Kafka
 * makes a new assignor per rebalance by reflection, so the count lives in that shared object.
 */
public final class CountingTaskAssignor implements TaskAssignor {

	private final StickyTaskAssignor sticky = new StickyTaskAssignor();

	private AssignorCalls calls;

	private String instance;

	@Override
	public void configure(Map<String, ?> configs) {
		this.calls = (AssignorCalls) configs.get(AssignorCalls.CONFIG);
		this.instance = String.valueOf(configs.get(StreamsLauncher.INSTANCE_NAME_CONFIG));
		this.sticky.configure(configs);
	}

	@Override
	public TaskAssignment assign(ApplicationState applicationState) {
		if (this.calls != null) {
			this.calls.record(this.instance);
		}
		return this.sticky.assign(applicationState);
	}

}
