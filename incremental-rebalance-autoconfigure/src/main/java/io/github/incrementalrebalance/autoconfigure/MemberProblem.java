package io.github.incrementalrebalance.autoconfigure;

import java.util.Optional;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What keeps a member from handing its tasks to warm learners, or from processing at all. Health's {@code problem} and
 * the {@code incremental.rebalance.problem} gauge read the same conditions, so an alert fires when health says why.
 */
enum MemberProblem {

	/** Its control topic cannot be read, or its plans cannot be published. */
	CONTROL_TOPIC("control-topic") {
		@Override
		Optional<String> of(MemberRuntime runtime) {
			return runtime.controlTopicProblem();
		}
	},

	/** Another live member has its instance id: a leave for that id is refused. */
	DUPLICATE_INSTANCE_ID("duplicate-instance-id") {
		@Override
		Optional<String> of(MemberRuntime runtime) {
			return runtime.hasDuplicateInstanceId() ? Optional.of("instance id " + runtime.identity().instanceId()
					+ " is used by another live member: a leave for it is refused; give each instance its own")
					: Optional.empty();
		}
	},

	/**
	 * Its Kafka Streams went to {@code ERROR} while it was meant to run (stable or leaving): it processes nothing and
	 * is out of its group until restarted. A member that left on purpose closes into {@code NOT_RUNNING} instead.
	 */
	STREAMS_ERROR("streams-error") {
		@Override
		Optional<String> of(MemberRuntime runtime) {
			MemberState state = runtime.state();
			boolean meantToRun = state == MemberState.STABLE || state == MemberState.LEAVING;
			return (meantToRun && runtime.streamsState().filter(KafkaStreams.State.ERROR::equals).isPresent())
					? Optional.of("Kafka Streams of " + runtime.identity().instanceId() + " are in ERROR (a stream "
							+ "thread's uncaught exception shut the client down): it processes nothing and is out of "
							+ "its group until restarted; its log says why")
					: Optional.empty();
		}
	},

	/** Its last planning round fell back to Kafka's assignor: no learners until a round plans again. */
	ASSIGNOR_FALLBACK("assignor-fallback") {
		@Override
		Optional<String> of(MemberRuntime runtime) {
			return runtime.assignorStatus().fallingBack()
					? Optional.of("the last assignment fell back to Kafka's sticky assignor ("
							+ runtime.assignorStatus().lastFallbackReason().orElse("no reason given")
							+ "): no learners until a rebalance plans again")
					: Optional.empty();
		}
	};

	private final String word;

	MemberProblem(String word) {
		this.word = word;
	}

	/**
	 * @param runtime the member
	 * @return why the member has this problem, empty when it has not
	 */
	abstract Optional<String> of(MemberRuntime runtime);

	/**
	 * @return the problem as the gauge's {@code problem} tag names it
	 */
	String word() {
		return this.word;
	}

}
