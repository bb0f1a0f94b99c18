package io.github.incrementalrebalance.testkit;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.planner.LeaveRequest;

/**
 * A control view held in memory, for tests that hand the assignor leave requests directly.
 */
public final class InMemoryControlView implements ControlView {

	private final Map<String, LeaveRequest> requests = new ConcurrentHashMap<>();

	private volatile Optional<String> outOfDate = Optional.empty();

	/**
	 * Say the view may be out of date, or no longer.
	 * @param reason why it may be, empty once it is read again
	 */
	public void outOfDate(Optional<String> reason) {
		this.outOfDate = reason;
	}

	@Override
	public Optional<String> outOfDate() {
		return this.outOfDate;
	}

	/**
	 * Record a leave request, replacing an earlier one of the same instance.
	 * @param request the request
	 */
	public void requestLeave(LeaveRequest request) {
		this.requests.put(request.instanceId(), request);
	}

	/**
	 * Cancel an instance's leave request.
	 * @param instanceId the instance
	 */
	public void cancel(String instanceId) {
		this.requests.remove(instanceId);
	}

	@Override
	public List<LeaveRequest> leaveRequests() {
		return List.copyOf(this.requests.values());
	}

}
