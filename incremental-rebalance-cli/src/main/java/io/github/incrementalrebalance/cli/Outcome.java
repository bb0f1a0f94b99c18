package io.github.incrementalrebalance.cli;

/**
 * What a leave or cancel did for one instance, as {@code --output json} prints it.
 *
 * @param instanceId the instance
 * @param result {@code leaving}, {@code cancelled} or {@code skipped}
 * @param leaveId the leave written or cancelled, null when skipped
 * @param reason why it was skipped, null otherwise
 */
record Outcome(String instanceId, String result, String leaveId, String reason) {

	static Outcome done(String instanceId, String result, String leaveId) {
		return new Outcome(instanceId, result, leaveId, null);
	}

	static Outcome skipped(String instanceId, String reason) {
		return new Outcome(instanceId, "skipped", null, reason);
	}

	boolean wasSkipped() {
		return this.leaveId == null;
	}

}
