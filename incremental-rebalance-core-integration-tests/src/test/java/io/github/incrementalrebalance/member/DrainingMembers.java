package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Members a, b and c of a {@link DrainScenarioGroup} whose learners restore slowly until released, and the one asked
 * to leave: the set-up of the drains that meet a fault (a cut, a slow link, brokers going away).
 */
final class DrainingMembers implements AutoCloseable {

	private final DrainScenarioGroup scenario;

	private final TrackingProducer producer;

	private final StreamsLauncher launcher;

	private final Map<String, RestoreThrottle> throttles = DrainScenarioGroup.throttles(200);

	private final List<StreamsInstance> members;

	private StreamsInstance leaver;

	private Set<TaskId> moving;

	private DrainingMembers(DrainScenarioGroup scenario, UnaryOperator<StreamsLauncher> settings,
			UnaryOperator<StreamsLauncher.Spec> each) {
		this.scenario = scenario;
		this.producer = scenario.producer();
		this.launcher = settings.apply(scenario.launcher());
		this.members = this.throttles.entrySet()
			.stream()
			.map((entry) -> each.apply(this.launcher.instance(entry.getKey()))
				.restoreThrottle(entry.getValue())
				.memberRuntime()
				.start())
			.toList();
	}

	/**
	 * Start a, b and c, then load their state and check it was counted.
	 * @param scenario the application
	 * @param settings what the fault needs of every member (a session, a transaction timeout)
	 * @param each what it needs of each member's start (a proxy in front of it, for instance)
	 * @param keysPerTask state records per task
	 * @return the running members
	 */
	static DrainingMembers settle(DrainScenarioGroup scenario, UnaryOperator<StreamsLauncher> settings,
			UnaryOperator<StreamsLauncher.Spec> each, int keysPerTask) {
		DrainingMembers group = new DrainingMembers(scenario, settings, each);
		scenario.loadAndSettle(group.producer, keysPerTask, group.members.toArray(StreamsInstance[]::new));
		return group;
	}

	List<StreamsInstance> members() {
		return this.members;
	}

	/** @return the member asked to leave */
	StreamsInstance leaver() {
		return this.leaver;
	}

	/** @return the member that computed the group's assignment last */
	StreamsInstance leader() {
		return this.members.stream()
			.filter((member) -> member.runtime().assignorStatus().assignments() > 0)
			.reduce((first, second) -> second)
			.orElseThrow();
	}

	void leave(StreamsInstance member) {
		this.leaver = member;
		this.moving = member.activeTasks();
		member.runtime().leave(Optional.empty(), "test");
	}

	void awaitAcknowledged(Duration bound) {
		DrainScenarioGroup.awaitLeaveAcknowledged(this.leaver, this.members, bound);
	}

	List<StreamsInstance> learnerHolders() {
		return this.members.stream()
			.filter((member) -> member.plan().map(MemberPlan::learning).map((learning) -> !learning.isEmpty())
				.orElse(false))
			.toList();
	}

	void releaseLearners() {
		this.throttles.values().forEach(RestoreThrottle::release);
	}

	void assertHandedOverWarm() {
		try {
			this.scenario.assertHandedOverWarm(this.leaver, this.moving, this.members, this.producer);
		}
		finally {
			System.out.printf("Drain through the fault: %s%n",
					this.leaver.runtime().drainOutcome().map(DrainOutcome::describe).orElse("none"));
		}
	}

	@Override
	public void close() {
		this.launcher.close();
		this.producer.close();
	}

}
