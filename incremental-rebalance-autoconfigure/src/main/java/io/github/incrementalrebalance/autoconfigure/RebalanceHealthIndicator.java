package io.github.incrementalrebalance.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the members: always UP, also while draining (a liveness probe must never kill an instance mid-drain);
 * the details say where each member is.
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
			runtime.deadline().ifPresent((deadline) -> details.put("deadline", deadline));
			details.put("assignorFallbacks", runtime.assignorStatus().fallbacks());
			runtime.assignorStatus().lastFallbackReason().ifPresent((reason) -> details.put("lastFallback", reason));
			if (runtime.hasDuplicateInstanceId()) {
				details.put("duplicateInstanceId", true);
			}
			builder.withDetail(runtime.applicationId(), details);
		}
	}

}
