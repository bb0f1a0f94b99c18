package io.github.incrementalrebalance.cli;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a leave or cancel did for one instance, as {@code --output json} prints it.
 *
 * @param instanceId the instance
 * @param result {@code leaving}; for a cancel {@code cancelled} (the instance stays), {@code left-first} (it had left,
 * or was handing over, when the cancel came) or {@code unanswered} (no answer within {@code --wait}); or
 * {@code skipped}
 * @param leaveId the leave written or cancelled, null when skipped
 * @param reason why it was skipped, null otherwise
 * @param ended how the leave ended ({@code drained (learners-ready)}, ...), or {@code still leaving} when
 * {@code leave --wait} passed first; absent without {@code --wait}, and for a cancel unless {@code left-first}
 */
record Outcome(String instanceId, String result, String leaveId, String reason,
		@JsonInclude(JsonInclude.Include.NON_NULL) String ended) {

	static Outcome done(String instanceId, String result, String leaveId) {
		return new Outcome(instanceId, result, leaveId, null, null);
	}

	static Outcome skipped(String instanceId, String reason) {
		return new Outcome(instanceId, "skipped", null, reason, null);
	}

	Outcome endedAs(String how) {
		return new Outcome(this.instanceId, this.result, this.leaveId, this.reason, how);
	}

	boolean wasSkipped() {
		return this.leaveId == null;
	}

}
