package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.member.TaskState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the members, tagged by application: tasks per state, the largest learner lag, rebalances this member
 * enforced, drain durations, assignor fallbacks.
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
			runtime.addStateListener(new DrainTimer(registry, tags));
			FunctionCounter.builder("kafka.streams.rebalance.assignor.fallbacks", runtime,
					(member) -> member.assignorStatus().fallbacks())
				.description("Assignments this instance led with Kafka's sticky assignor after planning failed")
				.tags(tags)
				.register(registry);
		}
	}

	/**
	 * Times each drain from the leave to the hand-over ({@code outcome=drained}) or to the deadline
	 * ({@code outcome=forced}); a cancelled leave is not a drain.
	 */
	private static final class DrainTimer implements Consumer<MemberState> {

		private final MeterRegistry registry;

		private final Tags tags;

		private volatile long leavingSince = -1;

		DrainTimer(MeterRegistry registry, Tags tags) {
			this.registry = registry;
			this.tags = tags;
		}

		@Override
		public void accept(MemberState state) {
			switch (state) {
				case LEAVING -> this.leavingSince = System.nanoTime();
				case STABLE -> this.leavingSince = -1;
				case DRAINED, FORCED -> {
					long since = this.leavingSince;
					if (since >= 0) {
						Timer.builder("kafka.streams.rebalance.drain")
							.description("Time from a leave to its hand-over (drained) or to its deadline (forced)")
							.tags(this.tags.and("outcome", state.name().toLowerCase()))
							.register(this.registry)
							.record(Duration.ofNanos(System.nanoTime() - since));
					}
				}
				default -> {
				}
			}
		}

	}

}
