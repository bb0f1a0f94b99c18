package io.github.incrementalrebalance.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the members: UP while they can do their job, also while draining; DOWN with the reason when a member
 * cannot: its control topic cannot be read or its plans cannot be published, another live member has its instance id
 * (a leave for that id is refused), or its last planning round fell back to Kafka's assignor (no learners until a
 * round plans again); in each case its leaves would not hand tasks to warm learners. Keep it out
 * of the liveness group: a restart does not mend a control topic, and a liveness probe must never kill an instance
 * mid-drain. The details say where each member is and how its last leave ended.
 */
public class RebalanceHealthIndicator extends AbstractHealthIndicator {

	private final MemberRuntimes runtimes;

	public RebalanceHealthIndicator(MemberRuntimes runtimes) {
		super("Rebalance health check failed");
		this.runtimes = runtimes;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.up();
		for (MemberRuntime runtime : this.runtimes.all()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("instanceId", runtime.identity().instanceId());
			details.put("state", runtime.state());
			runtime.controlTopicProblem().ifPresent((problem) -> {
				builder.down();
				details.put("problem", problem);
			});
			if (runtime.hasDuplicateInstanceId()) {
				builder.down();
				details.put("duplicateInstanceId", true);
				details.putIfAbsent("problem", "instance id " + runtime.identity().instanceId() + " is used by another "
						+ "live member: a leave for it is refused; give each instance its own");
			}
			details.put("assignorFallbacks", runtime.assignorStatus().fallbacks());
			runtime.assignorStatus().lastFallbackReason().ifPresent((reason) -> details.put("lastFallback", reason));
			if (runtime.assignorStatus().fallingBack()) {
				builder.down();
				details.putIfAbsent("problem", "the last assignment fell back to Kafka's sticky assignor ("
						+ runtime.assignorStatus().lastFallbackReason().orElse("no reason given")
						+ "): no learners until a rebalance plans again");
			}
			runtime.assignorStatus().weightProblem()
				.ifPresent((problem) -> details.put("taskWeight", "count, not state-size: " + problem));
			runtime.deadline().ifPresent((deadline) -> details.put("deadline", deadline));
			runtime.leaveWaiting().ifPresent((why) -> details.put("leaveWaiting", why));
			runtime.drainStalled().ifPresent((why) -> details.put("drainStalled", why));
			runtime.drainOutcome().ifPresent((outcome) -> {
				details.put("outcome", outcome.kind().word());
				details.put("outcomeReason", outcome.reason().word());
				details.put("tasksMovedCold", outcome.tasksMovedCold());
			});
			builder.withDetail(runtime.applicationId(), details);
		}
	}

}
