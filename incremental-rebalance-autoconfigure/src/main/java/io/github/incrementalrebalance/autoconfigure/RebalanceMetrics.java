package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.member.TaskState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the members, tagged by application: tasks per state, the largest learner lag, rebalances this member
 * enforced, assignor fallbacks.
 */
public class RebalanceMetrics implements MeterBinder {

	private final MemberRuntimes runtimes;

	public RebalanceMetrics(MemberRuntimes runtimes) {
		this.runtimes = runtimes;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (MemberRuntime runtime : this.runtimes.all()) {
			Tags tags = Tags.of("application.id", runtime.applicationId());
			for (TaskRole role : TaskRole.values()) {
				Gauge.builder("kafka.streams.rebalance.tasks", runtime,
						(member) -> member.tasks().stream().filter((task) -> task.role() == role).count())
					.description("Tasks of this instance by state")
					.tags(tags.and("state", role.name().toLowerCase()))
					.register(registry);
			}
			Gauge.builder("kafka.streams.rebalance.learner.lag.max", runtime,
					(member) -> member.tasks().stream()
						.filter((task) -> task.role() == TaskRole.LEARNING && task.lag().isPresent())
						.mapToLong((TaskState task) -> task.lag().getAsLong())
						.max()
						.orElse(0))
				.description("Largest lag of this instance's learners")
				.tags(tags)
				.register(registry);
			FunctionCounter.builder("kafka.streams.rebalance.enforced", runtime,
					(member) -> member.rebalanceTrigger().map((trigger) -> (double) trigger.enforcedCount()).orElse(0.0))
				.description("Rebalances this instance enforced")
				.tags(tags)
				.register(registry);
			FunctionCounter.builder("kafka.streams.rebalance.assignor.fallbacks", runtime,
					(member) -> member.assignorStatus().fallbacks())
				.description("Assignments this instance led with Kafka's sticky assignor after planning failed")
				.tags(tags)
				.register(registry);
		}
	}

}
