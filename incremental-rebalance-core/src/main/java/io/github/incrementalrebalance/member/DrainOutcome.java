package io.github.incrementalrebalance.member;

import java.util.Locale;
import java.util.Objects;

/**
 * How a leave ended, in the words every surface uses (the member state, the endpoint, health, the {@code drain}
 * timer's {@code outcome} tag, the logs). Only a hand-over to ready learners is {@link Kind#DRAINED}; the kind
 * follows from the reason.
 *
 * @param reason why it ended so
 * @param tasksMovedCold stateful tasks the member still ran without a ready learner when it left: their new owners
 * restore them (0 when drained)
 */
public record DrainOutcome(Reason reason, int tasksMovedCold) {

	public DrainOutcome {
		Objects.requireNonNull(reason, "reason");
		if (reason.kind == Kind.DRAINED) {
			tasksMovedCold = 0;
		}
	}

	/**
	 * The outcome of a reason.
	 * @param reason why the leave ended
	 * @param tasksMovedCold stateful tasks that move without a ready learner
	 * @return the outcome
	 */
	public static DrainOutcome of(Reason reason, int tasksMovedCold) {
		return new DrainOutcome(reason, tasksMovedCold);
	}

	/**
	 * The kind of end.
	 * @return drained, forced, or left without learners
	 */
	public Kind kind() {
		return this.reason.kind;
	}

	/**
	 * The member state this outcome puts the member in until Kafka Streams closed.
	 * @return {@code DRAINED}, {@code FORCED} or {@code LEFT_WITHOUT_LEARNERS}
	 */
	public MemberState state() {
		return switch (kind()) {
			case DRAINED -> MemberState.DRAINED;
			case FORCED -> MemberState.FORCED;
			case LEFT_WITHOUT_LEARNERS -> MemberState.LEFT_WITHOUT_LEARNERS;
		};
	}

	/**
	 * One line for the log and the endpoint.
	 * @return e.g. {@code forced (deadline-passed): 2 stateful tasks move without a ready learner}
	 */
	public String describe() {
		String line = kind().word() + " (" + this.reason.word() + ")";
		if (this.reason == Reason.STANDBYS_READY) {
			return line + ": " + this.reason.meaning;
		}
		return (kind() == Kind.DRAINED) ? line + ": every task handed to a ready learner"
				: line + ": " + this.tasksMovedCold + " stateful task(s) move without a ready learner and restore on "
						+ "their new owner; " + this.reason.meaning;
	}

	/**
	 * What kind of end a leave had.
	 */
	public enum Kind {

		/** Every task was handed to a learner that was ready. */
		DRAINED,

		/** The drain timeout passed first: tasks without a ready learner moved cold. */
		FORCED,

		/** The member left without learners being placed for it: its stateful tasks moved cold. */
		LEFT_WITHOUT_LEARNERS;

		/**
		 * The word for metrics tags and JSON.
		 * @return {@code drained}, {@code forced} or {@code left-without-learners}
		 */
		public String word() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

	/**
	 * Why a leave ended as it did.
	 */
	public enum Reason {

		/** Every task it ran had a ready learner. */
		LEARNERS_READY(Kind.DRAINED, "every learner was ready"),

		/**
		 * Under the streams protocol: every other instance held a ready standby of every task it ran, so each task was
		 * warm wherever the broker moved it.
		 */
		STANDBYS_READY(Kind.DRAINED, "every other instance held a ready standby of every task it ran"),

		/** Its drain timeout passed (on the member's clock, or the leader's). */
		DEADLINE_PASSED(Kind.FORCED, "the drain timeout passed before every learner was ready"),

		/** No other member could take its tasks (scale to zero), and the leave was forced. */
		NO_OTHER_MEMBER(Kind.LEFT_WITHOUT_LEARNERS, "no other member could take its tasks"),

		/** A member of the group runs mode upgrading: the leader places no learners. */
		MIXED_MODES(Kind.LEFT_WITHOUT_LEARNERS,
				"a member runs incremental.rebalance.mode=upgrading, so the leader places no learners"),

		/** This member runs mode upgrading (Kafka's own assignor): it leaves at once. */
		OWN_MODE_UPGRADING(Kind.LEFT_WITHOUT_LEARNERS,
				"this member runs incremental.rebalance.mode=upgrading (Kafka's own assignor)"),

		/**
		 * A rebalance answered the leave, but no leader published a plan since: the leader runs Kafka's own assignor,
		 * is on its fallback after a planning error, or could not write its plan.
		 */
		NO_LEARNER_PLAN(Kind.LEFT_WITHOUT_LEARNERS, "the leader published no learner plan after the rebalance (it runs "
				+ "Kafka's own assignor, is on its fallback after a planning error, or could not write its plan)"),

		/** No plan acknowledged the leave within the bound, measured on the member's clock. */
		UNANSWERED(Kind.LEFT_WITHOUT_LEARNERS,
				"no leader acknowledged the leave (is the control topic readable by the leader?)"),

		/**
		 * A leader of a newer version told it to hand over, for a reason this version does not know, before every
		 * learner was ready (a rolling upgrade of the library).
		 */
		HANDED_OVER_BY_A_NEWER_LEADER(Kind.FORCED, "a leader of a newer version handed its tasks over, for a reason "
				+ "this version does not know, before every learner was ready");

		private final Kind kind;

		private final String meaning;

		Reason(Kind kind, String meaning) {
			this.kind = kind;
			this.meaning = meaning;
		}

		public Kind kind() {
			return this.kind;
		}

		/**
		 * The word for metrics tags and JSON.
		 * @return e.g. {@code learners-ready}
		 */
		public String word() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

}
