package io.github.incrementalrebalance.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the members: UP while they can do their job, also while draining; DOWN with the reason when a member's
 * control topic cannot be read or its plans cannot be published (its leaves would end without learners). Keep it out
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
			runtime.deadline().ifPresent((deadline) -> details.put("deadline", deadline));
			runtime.drainOutcome().ifPresent((outcome) -> {
				details.put("outcome", outcome.kind().word());
				details.put("outcomeReason", outcome.reason().word());
				details.put("tasksMovedCold", outcome.tasksMovedCold());
			});
			details.put("assignorFallbacks", runtime.assignorStatus().fallbacks());
			runtime.assignorStatus().lastFallbackReason().ifPresent((reason) -> details.put("lastFallback", reason));
			if (runtime.hasDuplicateInstanceId()) {
				details.put("duplicateInstanceId", true);
			}
			builder.withDetail(runtime.applicationId(), details);
		}
	}

}
