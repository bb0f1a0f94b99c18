package io.github.incrementalrebalance.member;

/**
 * What a member does with a task.
 */
public enum TaskRole {

	/** It runs the task. */
	ACTIVE,

	/** It runs the task while a learner of it warms up on the task's next owner. */
	BEING_LEARNED,

	/** It warms up the task's state to take it over. */
	LEARNING,

	/** It keeps a standby replica ({@code num.standby.replicas}). */
	STANDBY

}
