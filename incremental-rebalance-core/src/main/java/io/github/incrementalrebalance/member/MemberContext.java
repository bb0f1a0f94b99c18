package io.github.incrementalrebalance.member;

import java.util.Map;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import org.apache.kafka.streams.StreamsConfig;

/**
 * What every start of a member shares for the runtime's life: the Kafka Streams config it was made with, the learner
 * settings read from it, the control topic's reader and writer, and its clocks. Immutable; any thread.
 *
 * @param streamsConfig the Kafka Streams config, as given to the runtime
 * @param config the learner settings
 * @param controlTopic the control topic's name
 * @param reader the control topic's reader
 * @param writer the control topic's writer
 * @param clocks the member's clocks
 */
record MemberContext(Map<String, Object> streamsConfig, LearnerConfig config, String controlTopic,
		ControlTopicReader reader, ControlTopicWriter writer, MemberClocks clocks) {

	/**
	 * The context of a runtime made with a Kafka Streams config.
	 * @param streamsConfig the config
	 * @param clocks the member's clocks
	 * @return the context
	 */
	static MemberContext of(Map<String, Object> streamsConfig, MemberClocks clocks) {
		LearnerConfig config = new LearnerConfig(streamsConfig);
		// made once here, so that a policy that cannot be made stops start-up rather than every rebalance's plan
		config.placementPolicy();
		String application = String.valueOf(streamsConfig.get(StreamsConfig.APPLICATION_ID_CONFIG));
		String controlTopic = config.controlTopic(application);
		ControlTopicReader reader = new ControlTopicReader(streamsConfig, controlTopic, application);
		ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, controlTopic);
		writer.mendLateWritesReadBy(reader);
		return new MemberContext(streamsConfig, config, controlTopic, reader, writer, clocks);
	}

	String applicationId() {
		return String.valueOf(this.streamsConfig.get(StreamsConfig.APPLICATION_ID_CONFIG));
	}

	long acceptableRecoveryLag() {
		return LearnerConfig.acceptableRecoveryLag(this.streamsConfig);
	}

	LeaveBounds leaveBounds() {
		return new LeaveBounds(this.config.leaveAcknowledgementTimeout(LearnerConfig.rebalanceTimeout(this.streamsConfig)),
				this.config.leaveUnanswered(), this.config.drainStallTimeout(),
				LearnerConfig.sessionTimeout(this.streamsConfig));
	}

}
