package io.github.incrementalrebalance.testkit;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.planner.LeaveRequest;

/**
 * A control view held in memory, for tests that hand the assignor leave requests directly.
 */
public final class InMemoryControlView implements ControlView {

	private final Map<String, LeaveRequest> requests = new ConcurrentHashMap<>();

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
