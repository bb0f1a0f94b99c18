package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import static io.github.incrementalrebalance.testkit.MemberPlanBuilder.plan;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which of an instance's leave records the view answers with, when the instance restarted in place and a leave for
 * its earlier start was written afterwards (a command line that read the plan before the restart): that stale request
 * stays pending, as nobody answers it, until the leader's housekeeping removes it.
 */
class ControlTopicViewTests {

	private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);

	private final ControlTopicView view = new ControlTopicView("app-rebalance-control");

	private long offset;

	private final LeaveRecord stale = LeaveRecord.request("m18", "old", NOW, Optional.empty(), "cli");

	private final LeaveRecord current = LeaveRecord.request("m18", "new", NOW.plusSeconds(60), Optional.empty(),
			"cli");

	@Test
	void aStaleRequestOfAnEarlierStartDoesNotHideHowTheCurrentStartsLeaveEnded() {
		apply(this.stale);
		planned(1, "m18", "new");
		assertThat(this.view.leaveRecord("m18")).as("the start that runs was not asked to leave").isEmpty();
		assertThat(this.view.leaveRecords()).doesNotContainKey("m18");

		apply(this.current);
		assertThat(this.view.leaveRecord("m18")).contains(this.current);

		LeaveRecord drained = this.current.endedAs(new LeaveRecord.Ended("drained", "learners-ready", 0));
		apply(drained);
		assertThat(this.view.leaveRecord("m18")).as("while it is in the plan").contains(drained);

		planned(2, "m21", "m21-1");
		assertThat(this.view.leaveRecord("m18")).as("once it left the plan").contains(drained);
		assertThat(this.view.leaveRecords()).containsEntry("m18", drained);
	}

	@Test
	void anInstanceThePlanDoesNotHoldAnswersWithItsLastStartsRecord() {
		LeaveRecord drained = this.current.endedAs(new LeaveRecord.Ended("drained", "learners-ready", 0));
		apply(this.stale);
		apply(this.current);
		apply(drained);
		assertThat(this.view.leaveRecord("m18")).as("a stale request does not hide how the last start's leave ended")
			.contains(drained);

		LeaveRecord earlierEnded = this.stale.endedAs(new LeaveRecord.Ended("forced", "deadline-passed", 2));
		LeaveRecord cancelled = this.current.cancel("cli");
		apply(cancelled);
		apply(earlierEnded);
		assertThat(this.view.leaveRecord("m18")).as("nor does the late end of an earlier start's leave")
			.contains(cancelled);
	}

	@Test
	void whileAStartIsPlannedAnEarlierStartsEndedLeaveIsItsHistory() {
		LeaveRecord ended = this.stale.endedAs(new LeaveRecord.Ended("drained", "learners-ready", 0));
		apply(ended);
		planned(1, "m18", "new");
		assertThat(this.view.leaveRecord("m18")).contains(ended);
		apply(this.current);
		assertThat(this.view.leaveRecord("m18")).contains(this.current);
	}

	/**
	 * A rolling upgrade of the library: records of a kind a newer version writes are skipped, said once per kind at
	 * INFO; a record of a known kind that cannot be read is reported with a WARN; the records around both are read.
	 */
	@Test
	void recordsOfANewerKindAreSkippedSayingSoOnceAndTheRecordsAroundThemRead() {
		try (LogCapture log = LogCapture.of(ControlTopicView.class)) {
			applyRaw("owner/m18/new", "{\"v\":4,\"claims\":[\"0_1\"]}");
			apply(this.current);
			applyRaw("owner/m19/new", "{\"v\":4}");
			applyRaw("leave/m19", "{\"v\":4}");

			assertThat(this.view.leaveRecord("m18")).contains(this.current);
			assertThat(log.messages(Level.INFO)).singleElement(InstanceOfAssertFactories.STRING)
				.contains("Skipping control records of kind 'owner/'", "first at offset 0", "a newer version");
			assertThat(log.messages(Level.WARN)).singleElement(InstanceOfAssertFactories.STRING)
				.contains("Skipping control record at offset 3", "unknown key 'leave/m19'");
		}
	}

	/**
	 * Two applications configured with one control topic: the other's plan is not adopted, it is reported once, and a
	 * plan that does not say whose it is (a version before it said) is taken as before.
	 */
	@Test
	void anotherApplicationsPlanIsNotTakenAndIsReportedOnce() {
		ControlTopicView orders = new ControlTopicView("shared-control", Optional.of("orders"));
		try (LogCapture log = LogCapture.of(ControlTopicView.class)) {
			applyTo(orders, new PlanEpoch(4, 3, "o1", NOW, "orders' plan", List.of(), "orders"));
			applyTo(orders, new PlanEpoch(9, 8, "p1", NOW, "payments' plan", List.of(), "payments"));
			applyTo(orders, new PlanEpoch(10, 9, "p1", NOW, "payments' next plan", List.of(), "payments"));

			assertThat(orders.planEpoch()).hasValueSatisfying((held) -> assertThat(held.leader()).isEqualTo("o1"));
			assertThat(orders.otherApplications()).containsExactly("payments");
			assertThat(log.messages(Level.WARN)).singleElement(InstanceOfAssertFactories.STRING)
				.contains("holds the plans of application payments as well as of orders",
						"incremental.rebalance.control.topic");
		}
		applyTo(orders, new PlanEpoch(5, 4, "o2", NOW, "a plan of an older version", List.of()));
		assertThat(orders.planEpoch()).hasValueSatisfying((held) -> assertThat(held.leader()).isEqualTo("o2"));
	}

	private void applyTo(ControlTopicView view, ControlRecord value) {
		view.apply(new ConsumerRecord<>("shared-control", 0, this.offset++, ControlCodec.encodeKey(value.key()),
				ControlCodec.encodeValue(value)));
	}

	private void applyRaw(String key, String value) {
		this.view.apply(new ConsumerRecord<>("app-rebalance-control", 0, this.offset++, ControlCodec.encodeKey(key),
				value.getBytes(StandardCharsets.UTF_8)));
	}

	/** A plan of one member, adopted. */
	private void planned(int generation, String instanceId, String incarnation) {
		apply(plan(instanceId, incarnation).active("0_1").record(generation));
		apply(new PlanEpoch(generation, generation - 1, instanceId, NOW, "test", List.of()));
	}

	private void apply(ControlRecord value) {
		this.view.apply(new ConsumerRecord<>("app-rebalance-control", 0, this.offset++,
				ControlCodec.encodeKey(value.key()), ControlCodec.encodeValue(value)));
	}

}
