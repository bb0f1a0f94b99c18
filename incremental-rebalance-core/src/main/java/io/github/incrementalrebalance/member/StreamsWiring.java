package io.github.incrementalrebalance.member;

import java.util.Properties;

import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.assignor.ChangelogSizes;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.assignor.PlanListener;
import io.github.incrementalrebalance.assignor.PreviousPlan;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.StartRefusedException;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts into a Kafka Streams config what the library needs in it: the learner assignor, the consumers' fetch waits and
 * the stream threads' poll (mode incremental), the member's identity as client tags, and the objects the assignor reads, which Kafka hands
 * to the new assignor it makes each rebalance. The application's thread, under the runtime's lock.
 */
final class StreamsWiring {

	/**
	 * The main and restore consumers' {@code fetch.max.wait.ms} unless the application set one. A fetch of idle
	 * partitions waits at the broker for this long, and what a hand-over needs next waits behind it on the connection:
	 * a promoted learner's read past the leaver's last commit (a quarter of a drain's stall at Kafka's 500 ms), a
	 * thread's fetch of a task it was just given and the end offsets the task waits for (half a second each). The price
	 * is an idle consumer asking five times as often.
	 */
	static final int FETCH_MAX_WAIT_MS = 100;

	/**
	 * {@code poll.ms} unless the application set it. A stream thread whose task was just assigned or restored only
	 * sees so when its poll returns, and an idle thread rejoins a rebalance only then: at Kafka's 100 ms both waited
	 * behind a poll of partitions with nothing new, a third to a half of a drained hand-over's stall. The price is an
	 * idle stream thread waking ten times as often and, in the steady-state benchmark, about 4 % of a backlog's
	 * throughput.
	 */
	static final int POLL_MS = 10;

	private static final Logger logger = LoggerFactory.getLogger(StreamsWiring.class);

	private final LearnerConfig config;

	private final ControlView controlView;

	private final AssignorStatus assignorStatus;

	private final ChangelogSizes changelogSizes;

	private boolean rackWarned;

	StreamsWiring(LearnerConfig config, ControlView controlView, AssignorStatus assignorStatus,
			ChangelogSizes changelogSizes) {
		this.config = config;
		this.controlView = controlView;
		this.assignorStatus = assignorStatus;
		this.changelogSizes = changelogSizes;
	}

	/**
	 * The config to build a start of Kafka Streams with.
	 * @param properties the application's Kafka Streams config
	 * @param start what that start is built with
	 * @return a copy with the library's settings
	 * @throws StartRefusedException when the application set its own {@code task.assignor.class} in mode
	 * incremental
	 */
	Properties configure(Properties properties, StartWiring start) {
		Properties configured = new Properties();
		configured.putAll(properties);
		// under the streams protocol the broker assigns and Kafka Streams ignores any client-side assignor
		if (this.config.rebalancingMode() == RebalancingMode.INCREMENTAL
				&& LearnerConfig.groupProtocol(properties) == GroupProtocol.CLASSIC) {
			Object assignor = properties.get(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG);
			if (assignor != null && !LearnerTaskAssignor.class.getName().equals(String.valueOf(assignor))) {
				throw new StartRefusedException(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, "task.assignor.class is set "
						+ "to " + assignor + ": in incremental.rebalance.mode=incremental incremental-rebalance needs "
						+ LearnerTaskAssignor.class.getName(), "no task.assignor.class (it is set for you), or "
								+ "incremental.rebalance.mode=upgrading to keep your own assignor without learners");
			}
			configured.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, LearnerTaskAssignor.class.getName());
			shortenFetchWait(properties, configured, StreamsConfig.mainConsumerPrefix(""));
			shortenFetchWait(properties, configured, StreamsConfig.restoreConsumerPrefix(""));
			configured.putIfAbsent(StreamsConfig.POLL_MS_CONFIG, POLL_MS);
			if (!this.rackWarned) {
				this.rackWarned = true;
				warnOfRackAwareStrategy(properties);
			}
		}
		start.identity()
			.clientTags()
			.forEach((key, value) -> configured.put(StreamsConfig.CLIENT_TAG_PREFIX + key, value));
		configured.put(ControlView.CONFIG, this.controlView);
		configured.put(PlanListener.CONFIG, start.publisher());
		configured.put(PreviousPlan.CONFIG, start.publisher().previousPlan());
		configured.put(AssignorStatus.CONFIG, this.assignorStatus);
		configured.put(ChangelogSizes.CONFIG, this.changelogSizes);
		return configured;
	}

	/**
	 * Sets one consumer's fetch wait unless the application chose it by any of the keys Kafka Streams reads it from.
	 * @param consumerPrefix {@code main.consumer.} or {@code restore.consumer.}
	 */
	private static void shortenFetchWait(Properties properties, Properties configured, String consumerPrefix) {
		String key = ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG;
		if (properties.get(key) == null && properties.get(StreamsConfig.consumerPrefix(key)) == null
				&& properties.get(consumerPrefix + key) == null) {
			configured.put(consumerPrefix + key, FETCH_MAX_WAIT_MS);
		}
	}

	/**
	 * Rack-aware placement needs every member's {@code client.rack}.
	 */
	private static void warnOfRackAwareStrategy(Properties properties) {
		Object strategy = properties.get(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG);
		if (strategy == null
				|| StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE.equals(String.valueOf(strategy).trim())) {
			return;
		}
		boolean rack = properties.get(ConsumerConfig.CLIENT_RACK_CONFIG) != null
				|| properties.get(StreamsConfig.consumerPrefix(ConsumerConfig.CLIENT_RACK_CONFIG)) != null
				|| properties.get(StreamsConfig.mainConsumerPrefix(ConsumerConfig.CLIENT_RACK_CONFIG)) != null;
		if (!rack) {
			logger.warn("rack.aware.assignment.strategy={} needs client.rack on every member, and this one has none: "
					+ "until every member has one, tasks are placed by warmth and load", strategy);
		}
	}

}
