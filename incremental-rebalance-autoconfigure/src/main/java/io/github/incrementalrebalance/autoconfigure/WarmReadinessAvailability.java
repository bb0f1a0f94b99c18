package io.github.incrementalrebalance.autoconfigure;

import java.util.function.BooleanSupplier;

import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.ReadinessState;

/**
 * The application's availability, where readiness also means warm while {@code incremental-rebalance.readiness.warm}
 * is on: an instance that would accept traffic refuses it until {@link WarmReadiness} finds it warm. Everything else
 * is Boot's: the events it records, liveness, a leaving instance refusing traffic.
 */
class WarmReadinessAvailability extends ApplicationAvailabilityBean {

	private final BooleanSupplier on;

	private final WarmReadiness warmth;

	/**
	 * @param on whether readiness means warm, read each time readiness is asked
	 * @param warmth whether this instance is warm
	 */
	WarmReadinessAvailability(BooleanSupplier on, WarmReadiness warmth) {
		this.on = on;
		this.warmth = warmth;
	}

	@Override
	public <S extends AvailabilityState> S getState(Class<S> stateType, S defaultState) {
		return warmOr(stateType, super.getState(stateType, defaultState));
	}

	@Override
	public <S extends AvailabilityState> S getState(Class<S> stateType) {
		return warmOr(stateType, super.getState(stateType));
	}

	private <S extends AvailabilityState> S warmOr(Class<S> stateType, S state) {
		if (stateType == ReadinessState.class && state == ReadinessState.ACCEPTING_TRAFFIC && this.on.getAsBoolean()
				&& !this.warmth.warm()) {
			return stateType.cast(ReadinessState.REFUSING_TRAFFIC);
		}
		return state;
	}

}
