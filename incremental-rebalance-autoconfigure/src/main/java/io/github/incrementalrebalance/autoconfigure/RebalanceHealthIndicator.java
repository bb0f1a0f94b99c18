package io.github.incrementalrebalance.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the members: UP while they can do their job, also while draining; the configured problem status (UP by
 * default) with the reason in {@code problem} when a member cannot: its control topic cannot be read or its plans
 * cannot be published, another live member has its instance id (a leave for that id is refused), or its last planning
 * round fell back to Kafka's assignor (no learners until a round plans again); in each case its leaves would not hand
 * tasks to warm learners, yet it processes, and a restart mends none of them: a 503 would pull a working instance out
 * of a load balancer or a registry. The details say where each member is and how its last leave ended.
 */
public class RebalanceHealthIndicator extends AbstractHealthIndicator {

	private final MemberRuntimes runtimes;

	private final Status problemStatus;

	private final boolean streamsErrorDown;

	/**
	 * @param runtimes the members
	 * @param problemStatus the status while a member cannot hand its tasks to learners
	 * @param streamsErrorDown whether a member whose Kafka Streams failed makes the status DOWN
	 */
	public RebalanceHealthIndicator(MemberRuntimes runtimes, Status problemStatus, boolean streamsErrorDown) {
		super("Rebalance health check failed");
		this.runtimes = runtimes;
		this.problemStatus = problemStatus;
		this.streamsErrorDown = streamsErrorDown;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		boolean anyProblem = false;
		boolean anyFailed = false;
		for (MemberRuntime runtime : this.runtimes.all()) {
			anyFailed |= MemberProblem.STREAMS_ERROR.of(runtime).isPresent();
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("instanceId", runtime.identity().instanceId());
			details.put("state", runtime.state());
			for (MemberProblem problem : MemberProblem.values()) {
				problem.of(runtime).ifPresent((why) -> details.putIfAbsent("problem", why));
			}
			if (runtime.hasDuplicateInstanceId()) {
				details.put("duplicateInstanceId", true);
			}
			details.put("assignorFallbacks", runtime.assignorStatus().fallbacks());
			runtime.assignorStatus().lastFallbackReason().ifPresent((reason) -> details.put("lastFallback", reason));
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
			anyProblem |= details.containsKey("problem");
			builder.withDetail(runtime.applicationId(), details);
		}
		builder.status((anyFailed && this.streamsErrorDown) ? Status.DOWN : anyProblem ? this.problemStatus : Status.UP);
	}

}
