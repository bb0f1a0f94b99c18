package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;

/**
 * A leaving instance refuses traffic, so Kubernetes takes it out of its Service while it drains; it accepts again
 * once every member is stable (a cancelled leave). An instance running several Kafka Streams applications refuses
 * only once none of them stays: one application's leave does not take the others' interactive queries away.
 */
class LeavingReadiness implements MemberRuntimeCustomizer {

	private final ApplicationContext context;

	private final MemberRuntimes runtimes;

	LeavingReadiness(ApplicationContext context, MemberRuntimes runtimes) {
		this.context = context;
		this.runtimes = runtimes;
	}

	@Override
	public void customize(MemberRuntime runtime) {
		runtime.addStateListener(this::publish);
	}

	private void publish(MemberState state) {
		if (state == MemberState.LEAVING && !this.runtimes.anyIs(MemberState.STABLE)) {
			AvailabilityChangeEvent.publish(this.context, ReadinessState.REFUSING_TRAFFIC);
		}
		else if (state == MemberState.STABLE && this.runtimes.allAre(MemberState.STABLE)) {
			AvailabilityChangeEvent.publish(this.context, ReadinessState.ACCEPTING_TRAFFIC);
		}
	}

}
