package io.github.incrementalrebalance.config;

import java.time.Duration;
import java.util.Map;

import io.github.incrementalrebalance.planner.LearnerRebalance;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.GroupProtocol;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class LearnerConfigTests {

	@Test
	void defaultsWithoutAnyKey() {
		LearnerConfig config = new LearnerConfig(Map.of());
		assertThat(config.rebalancingMode()).isEqualTo(RebalancingMode.INCREMENTAL);
		assertThat(config.drainTimeout()).isEmpty();
		assertThat(config.balancingFactor()).isEqualTo(2.0);
		assertThat(config.learnerRebalance()).isEqualTo(LearnerRebalance.CONSERVATIVE);
		assertThat(config.learnerProbeInterval()).isEqualTo(Duration.ofSeconds(30));
		assertThat(config.leaveOnClose()).isTrue();
		assertThat(config.controlTopicTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(config.taskWeightTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void taskWeightTimeoutIsTheApplicationsAndRefusesWhatAnOffsetRequestCannotTake() {
		assertThat(new LearnerConfig(Map.of("incremental.rebalance.task.weight.timeout.ms", "20000")).taskWeightTimeout())
			.isEqualTo(Duration.ofSeconds(20));
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.task.weight.timeout.ms", "0")))
			.withMessageContaining("incremental.rebalance.task.weight.timeout.ms")
			.withMessageContaining("Value must be at least 1");
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(
					Map.of("incremental.rebalance.task.weight.timeout.ms", String.valueOf(1L + Integer.MAX_VALUE))))
			.withMessageContaining("no more than " + Integer.MAX_VALUE);
	}

	@Test
	void leaveOnCloseCanBeSwitchedOff() {
		assertThat(new LearnerConfig(Map.of("incremental.rebalance.leave.on.close", "false")).leaveOnClose()).isFalse();
	}

	@Test
	void aLeaveWaitsForItsAnswerAsLongAsTheGroupsRebalanceTimeoutAndKeepsAskingUnlessSetOtherwise() {
		assertThat(LearnerConfig.rebalanceTimeout(Map.of())).as("the consumer's default").isEqualTo(Duration.ofMinutes(5));
		assertThat(LearnerConfig.rebalanceTimeout(Map.of("max.poll.interval.ms", "60000")))
			.isEqualTo(Duration.ofMinutes(1));
		assertThat(LearnerConfig.rebalanceTimeout(Map.of("max.poll.interval.ms", 60_000,
				"consumer.max.poll.interval.ms", 90_000))).isEqualTo(Duration.ofSeconds(90));
		assertThat(LearnerConfig.rebalanceTimeout(Map.of("consumer.max.poll.interval.ms", 90_000,
				"main.consumer.max.poll.interval.ms", 120_000))).as("the main consumer's, as Kafka Streams gives it")
			.isEqualTo(Duration.ofMinutes(2));

		LearnerConfig defaults = new LearnerConfig(Map.of());
		assertThat(defaults.leaveAcknowledgementTimeout(Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
		assertThat(defaults.leaveUnanswered()).isFalse();
		LearnerConfig set = new LearnerConfig(Map.of("incremental.rebalance.leave.acknowledgement.timeout.ms", "20000",
				"incremental.rebalance.leave.unanswered", "LEAVE"));
		assertThat(set.leaveAcknowledgementTimeout(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(20));
		assertThat(set.leaveUnanswered()).isTrue();
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.leave.acknowledgement.timeout.ms", "0")))
			.withMessageContaining("incremental.rebalance.leave.acknowledgement.timeout.ms")
			.withMessageContaining("must be >= 1 millisecond, or unset for the group's rebalance timeout");
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.leave.unanswered", "drop")))
			.withMessageContaining("incremental.rebalance.leave.unanswered")
			.withMessageContaining("WAIT");
	}

	@Test
	void readsTheGroupProtocolAsKafkaStreamsDoesAndRefusesAnotherNamingWhatIsAccepted() {
		assertThat(LearnerConfig.groupProtocol(Map.of())).isEqualTo(GroupProtocol.CLASSIC);
		assertThat(LearnerConfig.groupProtocol(Map.of("group.protocol", "classic"))).isEqualTo(GroupProtocol.CLASSIC);
		assertThat(LearnerConfig.groupProtocol(Map.of("group.protocol", " STREAMS "))).isEqualTo(GroupProtocol.STREAMS);
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> LearnerConfig.groupProtocol(Map.of("group.protocol", "consumer")))
			.withMessageContaining("group.protocol=consumer is not a group protocol of Kafka Streams")
			.withMessageContaining("accepted: classic or streams");
	}

	@Test
	void readsEveryKeyAsKafkaPropertiesGiveThem() {
		LearnerConfig config = new LearnerConfig(Map.of("incremental.rebalance.mode", "UPGRADING",
				"incremental.rebalance.drain.timeout.ms", "60000", "incremental.rebalance.balancing.factor", "1.5",
				"incremental.rebalance.drain.hand.over", "eager", "incremental.rebalance.learner.probe.interval.ms", 5000L));
		assertThat(config.rebalancingMode()).isEqualTo(RebalancingMode.UPGRADING);
		assertThat(config.drainTimeout()).contains(Duration.ofMinutes(1));
		assertThat(config.balancingFactor()).isEqualTo(1.5);
		assertThat(config.learnerRebalance()).isEqualTo(LearnerRebalance.EAGER);
		assertThat(config.learnerProbeInterval()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void balancingFactorBelowOneNamesTheKeyAndTheMinimum() {
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.balancing.factor", "0.5")))
			.withMessageContaining("incremental.rebalance.balancing.factor")
			.withMessageContaining("0.5")
			.withMessageContaining("at least 1.0");
	}

	@Test
	void unknownModeNamesTheKeyAndTheAcceptedValues() {
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.mode", "fast")))
			.withMessageContaining("incremental.rebalance.mode")
			.withMessageContaining("INCREMENTAL")
			.withMessageContaining("UPGRADING");
	}

	@Test
	void unknownTriggerNamesTheKeyAndTheAcceptedValues() {
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.drain.hand.over", "sometimes")))
			.withMessageContaining("incremental.rebalance.drain.hand.over")
			.withMessageContaining("EAGER")
			.withMessageContaining("CONSERVATIVE");
	}

	@Test
	void negativeDrainTimeoutNamesTheKeyAndWhatIsAccepted() {
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.drain.timeout.ms", "-1")))
			.withMessageContaining("incremental.rebalance.drain.timeout.ms")
			.withMessageContaining("must be >= 0 milliseconds, or unset to wait for learners");
	}

	@Test
	void nonPositiveProbeIntervalNamesTheKey() {
		assertThatExceptionOfType(ConfigException.class)
			.isThrownBy(() -> new LearnerConfig(Map.of("incremental.rebalance.learner.probe.interval.ms", "0")))
			.withMessageContaining("incremental.rebalance.learner.probe.interval.ms")
			.withMessageContaining("at least 1");
	}

}
