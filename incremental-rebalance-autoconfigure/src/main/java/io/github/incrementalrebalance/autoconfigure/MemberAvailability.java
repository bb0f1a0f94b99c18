package io.github.incrementalrebalance.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceProperties.StreamsError;
import io.github.incrementalrebalance.member.MemberRuntime;

import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;

/**
 * The application's availability as its members see it; everything else is Boot's (the events it records, a leaving
 * instance refusing traffic):
 * <ul>
 * <li>while {@code incremental-rebalance.readiness.warm} is on, an instance that would accept traffic refuses it until
 * {@link WarmReadiness} finds it warm;</li>
 * <li>a member whose Kafka Streams went to {@code ERROR} (an uncaught exception with {@code SHUTDOWN_CLIENT}, the
 * binder's default) processes nothing and is out of its group: readiness refuses traffic, and with
 * {@code incremental-rebalance.health.streams-error=liveness} liveness is broken too, so that the kubelet restarts the
 * pod. A member that left its group on purpose (drained, forced) closes its Kafka Streams into {@code NOT_RUNNING},
 * never {@code ERROR}, and is never reported so.</li>
 * </ul>
 * The settings are read each time availability is asked, not as bean conditions, so that an AOT-processed application
 * honours the values it runs with.
 */
class MemberAvailability extends ApplicationAvailabilityBean {

	private final Supplier<IncrementalRebalanceProperties> properties;

	private final Supplier<List<MemberRuntime>> runtimes;

	private final WarmReadiness warmth;

	/**
	 * @param properties the settings, read each time availability is asked
	 * @param runtimes this instance's members
	 * @param warmth whether this instance is warm
	 */
	MemberAvailability(Supplier<IncrementalRebalanceProperties> properties, Supplier<List<MemberRuntime>> runtimes,
			WarmReadiness warmth) {
		this.properties = properties;
		this.runtimes = runtimes;
		this.warmth = warmth;
	}

	@Override
	public <S extends AvailabilityState> S getState(Class<S> stateType, S defaultState) {
		return ours(stateType, super.getState(stateType, defaultState));
	}

	@Override
	public <S extends AvailabilityState> S getState(Class<S> stateType) {
		return ours(stateType, super.getState(stateType));
	}

	private <S extends AvailabilityState> S ours(Class<S> stateType, S state) {
		IncrementalRebalanceProperties settings = this.properties.get();
		StreamsError onError = settings.health().streamsError();
		if (stateType == LivenessState.class && state == LivenessState.CORRECT && onError == StreamsError.LIVENESS
				&& anyInError()) {
			return stateType.cast(LivenessState.BROKEN);
		}
		if (stateType == ReadinessState.class && state == ReadinessState.ACCEPTING_TRAFFIC
				&& ((onError != StreamsError.NONE && anyInError())
						|| (settings.readiness().warm() && !this.warmth.warm()))) {
			return stateType.cast(ReadinessState.REFUSING_TRAFFIC);
		}
		return state;
	}

	private boolean anyInError() {
		return this.runtimes.get().stream().anyMatch((runtime) -> MemberProblem.STREAMS_ERROR.of(runtime).isPresent());
	}

}
