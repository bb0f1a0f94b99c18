package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ControlCodecTests {

	/** The broker's {@code message.max.bytes}, and so a new topic's {@code max.message.bytes}, unless set. */
	private static final int DEFAULT_LARGEST_MESSAGE = 1_048_588;

	private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

	@Test
	void leaveRecordAndItsCancelRoundTrip() {
		LeaveRecord leave = LeaveRecord.request("pod-7", "k3j9", NOW, Optional.of(Duration.ofSeconds(60)), "endpoint");
		assertThat(roundTrip(leave)).isEqualTo(leave);
		assertThat(leave.timeout()).contains(Duration.ofSeconds(60));
		LeaveRecord unbounded = LeaveRecord.request("pod-7", "k3j9", NOW, Optional.empty(), "cli");
		assertThat(roundTrip(unbounded)).isEqualTo(unbounded);
		assertThat(unbounded.leaveId()).isNotEqualTo(leave.leaveId());
		LeaveRecord cancel = leave.cancel("cli");
		assertThat(roundTrip(cancel)).isEqualTo(cancel)
			.satisfies((read) -> assertThat(((LeaveRecord) read).cancelled()).isTrue());
		assertThat(cancel.leaveId()).isEqualTo(leave.leaveId());
		LeaveRecord ended = leave.endedAs(new LeaveRecord.Ended("forced", "deadline-passed", 2));
		assertThat(roundTrip(ended)).isEqualTo(ended);
		assertThat(ended.pending()).isFalse();
		assertThat(ended.ended()).hasValueSatisfying(
				(how) -> assertThat(how).hasToString("forced (deadline-passed), 2 task(s) moved cold"));
	}

	@Test
	void recordsOfTheUnreleasedVersionOneAreRefusedWithTheVersionRead() {
		assertMalformed("leave/pod-7/a1", "{\"v\":1,\"incarnation\":\"a1\",\"requestedAt\":5,\"source\":\"cli\"}",
				"has version 1, which no release wrote: this reader reads version 2 and later");
		assertMalformed(PlanEpoch.KEY, "{\"v\":1,\"epoch\":5000,\"leader\":\"pod-1\"}", "has version 1");
	}

	@Test
	void anEchoActsOnlyOnItsOwnLeave() {
		MemberPlan echoing = MemberPlanBuilder.plan("pod-7", "a").leaving("l1").build();
		assertThat(echoing.actsOn("l1")).isTrue();
		assertThat(echoing.actsOn("l2")).as("a plan for an earlier leave of the member").isFalse();
	}

	@Test
	void planRecordAndEpochRoundTrip() {
		PlanRecord plan = MemberPlanBuilder.plan("pod-7", "k3j9")
			.beingLearned("0_1")
			.ready("0_2", 12)
			.learning("0_3", 9000)
			.standby("0_4")
			.leaving("l1")
			.handOver(Optional.of(HandOverReason.LEARNERS_READY))
			.record(12);
		assertThat(plan.key()).as("one key per member start").isEqualTo("plan/pod-7/k3j9");
		assertThat(roundTrip(plan)).isEqualTo(plan);
		PlanEpoch epoch = new PlanEpoch(12, 11, "pod-1", NOW, "moved none", List.of("pod-3"), "orders");
		assertThat(roundTrip(epoch)).isEqualTo(epoch);
		PlanEpoch unnamed = new PlanEpoch(12, 11, "pod-1", NOW, "moved none", List.of("pod-3"));
		assertThat(roundTrip(unnamed)).as("a plan of a version that did not say whose it is")
			.isEqualTo(unnamed)
			.extracting((read) -> ((PlanEpoch) read).application()).isEqualTo("");
	}

	/**
	 * Version 2 wrote task sets as arrays of task ids; such a record still reads, and is written back packed.
	 */
	@Test
	void aPlanReadsAsTheTypedPlanItWasWrittenFrom() {
		String written = "{\"v\":2,\"incarnation\":\"k3j9\",\"generation\":12,\"active\":[\"0_1\",\"1_10\"],"
				+ "\"learning\":{\"0_2\":12,\"0_3\":9000},\"ready\":[\"0_2\"],\"beingLearned\":[\"1_10\"],"
				+ "\"standby\":[\"0_4\"],\"leaving\":true,\"leave\":\"l1\",\"handOver\":\"LEARNERS_READY\","
				+ "\"mode\":\"incremental\"}";
		PlanRecord read = (PlanRecord) ControlCodec.decode("plan/pod-7/k3j9", written.getBytes(StandardCharsets.UTF_8))
			.orElseThrow();
		MemberPlan plan = read.plan();
		assertThat(plan.active()).as("in task order, not text order").containsExactly(new TaskId(0, 1),
				new TaskId(1, 10));
		assertThat(plan.learning().values()).containsExactly(new Learner(new TaskId(0, 2), 12, true),
				new Learner(new TaskId(0, 3), 9000, false));
		assertThat(plan.beingLearned()).containsExactly(new TaskId(1, 10));
		assertThat(plan.standbyTasks()).as("what Kafka gets as standby tasks")
			.containsExactly(new TaskId(0, 2), new TaskId(0, 3), new TaskId(0, 4));
		assertThat(plan.actsOn("l1")).isTrue();
		assertThat(plan.handOver()).contains(HandOverReason.LEARNERS_READY);
		String packed = new String(ControlCodec.encodeValue(read), StandardCharsets.UTF_8);
		assertThat(packed).startsWith("{\"v\":3,").contains("\"active\":\"v1:", "\"learning\":{\"tasks\":\"v1:");
		assertThat(ControlCodec.decode(read.key(), packed.getBytes(StandardCharsets.UTF_8))).contains(read);
	}

	/**
	 * A member of a 100 000-task group of two: its half of the active tasks, the other half as standby tasks or
	 * learners with their lags, each set scattered at random. Written as task ids, its task ids alone were most of the
	 * topic's default largest message (1 MB), the lags passing it; packed, the whole record is a small part of it.
	 */
	@Test
	void aPlanOfHalfOfAHundredThousandScatteredTasksStaysFarBelowTheLargestMessage() {
		Random random = new Random(42);
		MemberPlanBuilder member = MemberPlanBuilder.plan("pod-7", "k3j9");
		StringBuilder asTaskIds = new StringBuilder();
		for (int task = 0; task < 100_000; task++) {
			String id = (task / 1_000) + "_" + (task % 1_000);
			asTaskIds.append('"').append(id).append("\",");
			if (random.nextBoolean()) {
				member.active(id);
			}
			else if (random.nextBoolean()) {
				member.standby(id);
			}
			else {
				member.learning(id, random.nextInt(2_000_000));
			}
		}
		PlanRecord plan = member.record(12);

		byte[] written = ControlCodec.encodeValue(plan);

		assertThat(asTaskIds.length()).as("the task ids alone, as version 2 wrote them").isGreaterThan(850_000);
		assertThat(written.length).as("bytes packed (random lags up to two million cost most of them)")
			.isLessThan(DEFAULT_LARGEST_MESSAGE / 5);
		assertThat(ControlCodec.decode(plan.key(), written)).contains(plan);
	}

	@Test
	void aPackedSetThatDoesNotUnpackIsMalformedNamingWhy() {
		assertMalformed("plan/pod-7/k3j9", "{\"v\":3,\"incarnation\":\"k3j9\",\"generation\":12,"
				+ "\"active\":\"0_1,0_2\"}",
				"has a 'active' that starts with neither z1: nor v1: (expected an array of task ids or a packed task set)");
		assertMalformed("plan/pod-7/k3j9", "{\"v\":3,\"incarnation\":\"k3j9\",\"generation\":12,"
				+ "\"standby\":\"z1://///w\"}", "has a 'standby' that is not a DEFLATE stream");
		String twoTasks = PackedTasks.pack(List.of(new TaskId(0, 1), new TaskId(0, 2)));
		String oneLag = PackedTasks.pack(new long[] { 5 });
		assertMalformed("plan/pod-7/k3j9", "{\"v\":3,\"incarnation\":\"k3j9\",\"generation\":12,"
				+ "\"learning\":{\"tasks\":\"" + twoTasks + "\",\"lags\":\"" + oneLag + "\"}}",
				"has learners' 'lags' that holds 1 lag(s) for 2 task(s)");
	}

	@Test
	void aPlanNamingSomethingThatIsNotATaskIsMalformed() {
		assertMalformed("plan/pod-7/k3j9", "{\"v\":2,\"incarnation\":\"k3j9\",\"generation\":12,\"active\":[\"0-1\"]}",
				"'0-1' in 'active', which is not a task id (expected <subtopology>_<partition>, e.g. 0_3)");
		assertMalformed("plan/pod-7/k3j9", "{\"v\":2,\"incarnation\":\"k3j9\",\"generation\":12,"
				+ "\"learning\":{\"store\":3}}", "'store' in 'learning', which is not a task id");
	}

	@Test
	void planRecordSaysTheMembersModeAndOneThatDoesNotRunsIncremental() {
		PlanRecord upgrading = MemberPlanBuilder.plan("pod-7", "k3j9").active("0_1").mode(RebalancingMode.UPGRADING)
			.record(12);
		assertThat(roundTrip(upgrading)).isEqualTo(upgrading);
		byte[] withoutMode = "{\"v\":2,\"incarnation\":\"k3j9\",\"generation\":12}".getBytes(StandardCharsets.UTF_8);
		assertThat(ControlCodec.decode("plan/pod-7/k3j9", withoutMode)).hasValueSatisfying(
				(plan) -> assertThat(((PlanRecord) plan).plan().mode()).isEqualTo(RebalancingMode.INCREMENTAL));
		// a mode of a newer version: the plan still reads, its mode shown as incremental
		assertThat(ControlCodec.decode("plan/pod-7/k3j9",
				"{\"v\":4,\"incarnation\":\"k3j9\",\"generation\":12,\"mode\":\"fast\"}".getBytes(StandardCharsets.UTF_8)))
			.hasValueSatisfying((plan) -> assertThat(((PlanRecord) plan).plan().mode())
				.isEqualTo(RebalancingMode.INCREMENTAL));
	}

	@Test
	void rejoinRequestRoundTrips() {
		RejoinRequest rejoin = new RejoinRequest("pod-7", "k3j9", 12, "incremental-rebalance: pod-7 is leaving", NOW);
		assertThat(rejoin.key()).isEqualTo("rejoin/pod-7");
		assertThat(roundTrip(rejoin)).isEqualTo(rejoin);
	}

	@Test
	void progressRecordRoundTripsWithAndWithoutAnEta() {
		ProgressRecord progress = new ProgressRecord("pod-7", "k3j9", NOW,
				List.of(new ProgressRecord.LearnerProgress("0_1", 52_000, 9_750.5, false,
						Optional.of(Duration.ofMillis(5_282))),
						new ProgressRecord.LearnerProgress("1_0", 300, 0, true, Optional.of(Duration.ZERO)),
						new ProgressRecord.LearnerProgress("1_2", 80_000, 0, false, Optional.empty())));
		assertThat(progress.key()).isEqualTo("progress/pod-7/k3j9");
		assertThat(roundTrip(progress)).isEqualTo(progress);
		assertThat(ControlCodec.decode("progress/pod-7/k3j9", null)).as("deleted when the learners are gone").isEmpty();
	}

	/**
	 * A member learning fifty thousand tasks at once (a drain of a large member) writes one progress record; one
	 * object per learner, it passed the topic's default largest message, and the record was refused, so that the
	 * others saw no progress of that member's learners. Packed as a plan is, it fits about twice over.
	 */
	@Test
	void progressOfFiftyThousandLearnersStaysFarBelowTheLargestMessage() {
		Random random = new Random(7);
		List<ProgressRecord.LearnerProgress> learners = new ArrayList<>();
		for (int task = 0; task < 50_000; task++) {
			boolean ready = random.nextInt(4) == 0;
			learners.add(new ProgressRecord.LearnerProgress((task / 500) + "_" + (task % 500),
					ready ? random.nextInt(10_000) : random.nextInt(2_000_000), random.nextInt(50_000_000) / 1_000.0,
					ready, ready ? Optional.of(Duration.ZERO)
							: (random.nextBoolean() ? Optional.of(Duration.ofMillis(random.nextInt(600_000))) : Optional.empty())));
		}
		ProgressRecord progress = new ProgressRecord("pod-7", "k3j9", NOW, learners);
		ProgressRecord asObjects = new ProgressRecord("pod-7", "k3j9", NOW,
				learners.stream().map((learner) -> new ProgressRecord.LearnerProgress("named-" + learner.task(),
						learner.lag(), learner.recordsPerSecond(), learner.ready(), learner.eta())).toList());

		byte[] written = ControlCodec.encodeValue(progress);

		assertThat(ControlCodec.encodeValue(asObjects).length).as("one object per learner, as before")
			.isGreaterThan(DEFAULT_LARGEST_MESSAGE);
		assertThat(written.length).as("packed: about ten bytes a learner with figures at random, the worst case")
			.isLessThan(DEFAULT_LARGEST_MESSAGE * 6 / 10);
		assertThat(ControlCodec.decode(progress.key(), written)).contains(progress);
	}

	@Test
	void progressOfATaskThatDoesNotPackIsWrittenAsObjectsAndBothFormsRead() {
		ProgressRecord named = new ProgressRecord("pod-7", "k3j9", NOW,
				List.of(new ProgressRecord.LearnerProgress("orders__0_1", 10, 1.5, false, Optional.empty())));
		assertThat(new String(ControlCodec.encodeValue(named), StandardCharsets.UTF_8)).contains("\"task\":\"orders__0_1\"");
		assertThat(roundTrip(named)).isEqualTo(named);
		assertThat(ControlCodec.decode("progress/pod-7/k3j9", ("{\"v\":3,\"incarnation\":\"k3j9\",\"at\":0,"
				+ "\"learners\":[{\"task\":\"0_1\",\"lag\":5,\"recordsPerSecond\":2.5,\"ready\":true}]}")
			.getBytes(StandardCharsets.UTF_8)))
			.hasValueSatisfying((record) -> assertThat(((ProgressRecord) record).learners()).singleElement()
				.isEqualTo(new ProgressRecord.LearnerProgress("0_1", 5, 2.5, true, Optional.empty())));
	}

	@Test
	void aPlanSupersedesOnlyAnEarlierGenerationOrTheOneItsLeaderReplacedAfterAGroupReset() {
		PlanEpoch held = new PlanEpoch(8, 7, "b", NOW, "", List.of());
		assertThat(new PlanEpoch(9, 8, "c", NOW, "", List.of()).supersedes(held)).isTrue();
		assertThat(new PlanEpoch(8, 7, "b", NOW, "", List.of()).supersedes(held)).as("published again").isTrue();
		assertThat(new PlanEpoch(7, 6, "a", NOW.plusSeconds(60), "", List.of()).supersedes(held))
			.as("a former leader's late write, whatever its clock says").isFalse();
		assertThat(new PlanEpoch(1, 8, "d", NOW, "", List.of()).supersedes(held))
			.as("the group was deleted and started again: its leader had read generation 8").isTrue();
		assertThat(new PlanEpoch(3, PlanEpoch.UNKNOWN_GENERATION, "e", NOW, "", List.of()).supersedes(
				new PlanEpoch(PlanEpoch.UNKNOWN_GENERATION, PlanEpoch.UNKNOWN_GENERATION, "old", NOW, "", List.of())))
			.as("after plans of version 1").isTrue();
	}

	@Test
	void tombstoneDecodesToNothing() {
		assertThat(ControlCodec.decode("leave/pod-7/a1", null)).isEmpty();
	}

	@Test
	void leaveAndPlanKeysNameTheStartAndAKeyOfTheInstanceAloneIsRefused() {
		LeaveRecord leave = LeaveRecord.request("pod-7", "a1", Instant.ofEpochMilli(5), Optional.empty(), "cli");
		assertThat(leave.key()).isEqualTo("leave/pod-7/a1");
		assertThat(ControlCodec.decode(leave.key(), ControlCodec.encodeValue(leave))).contains(leave);
		assertMalformed("leave/pod-7", new String(ControlCodec.encodeValue(leave), StandardCharsets.UTF_8),
				"unknown key 'leave/pod-7' (expected leave/<id>/<incarnation>");
		assertMalformed("plan/pod-7", "{\"v\":3,\"incarnation\":\"a\",\"generation\":1}", "unknown key 'plan/pod-7'");
	}

	@Test
	void aPlanNamesTheLeaveItActsOnExactlyWhenItsMemberIsLeaving() {
		assertMalformed("plan/pod-7/a", "{\"v\":3,\"incarnation\":\"a\",\"generation\":1,\"leaving\":true}",
				"has leaving true and no leave: a plan names the leave it acts on ('leave') exactly when its member is "
						+ "leaving");
		assertMalformed("plan/pod-7/a", "{\"v\":3,\"incarnation\":\"a\",\"generation\":1,\"leave\":\"l1\"}",
				"has leaving false and leave l1");
	}

	@Test
	void newerVersionsExtraFieldsAreIgnored() {
		byte[] value = ("{\"v\":3,\"incarnation\":\"a1\",\"leaveId\":\"l1\",\"requestedAt\":5,\"source\":\"cli\","
				+ "\"reason\":\"x\"}").getBytes(StandardCharsets.UTF_8);
		assertThat(ControlCodec.decode("leave/pod-7/a1", value)).contains(
				new LeaveRecord("pod-7", "a1", "l1", Instant.ofEpochMilli(5), Optional.empty(), "cli", false,
						Optional.empty()));
	}

	/**
	 * What a later version could write: a higher version, fields of its own, a hand-over reason and a mode this version
	 * does not know, a record of a new kind. The plan reads whole but for what it cannot know; the new kind is told
	 * apart from a malformed record of a known kind, which readers report.
	 */
	@Test
	void aNewerVersionsPlanReadsInPartAndItsRecordsOfNewKindsAreToldApart() {
		byte[] plan = ("{\"v\":4,\"incarnation\":\"a\",\"generation\":9,\"active\":[\"0_1\"],"
				+ "\"leaving\":true,\"leave\":\"l1\",\"handOver\":\"STANDBYS_AND_LEARNERS_READY\","
				+ "\"mode\":\"streams\",\"priority\":{\"order\":[\"0_1\"]},\"owner\":\"pod-8\"}")
			.getBytes(StandardCharsets.UTF_8);

		MemberPlan read = ((PlanRecord) ControlCodec.decode("plan/pod-7/a", plan).orElseThrow()).plan();

		assertThat(read.active()).containsExactly(new TaskId(0, 1));
		assertThat(read.leaveId()).contains("l1");
		assertThat(read.handOver()).as("the member hands over as told").contains(HandOverReason.NOT_KNOWN);
		assertThat(read.mode()).isEqualTo(RebalancingMode.INCREMENTAL);
		assertThatExceptionOfType(UnknownControlRecordKindException.class)
			.isThrownBy(() -> ControlCodec.decode("owner/pod-7/a", "{\"v\":4}".getBytes(StandardCharsets.UTF_8)))
			.satisfies((unknown) -> assertThat(unknown.kind()).isEqualTo("owner/"));
		assertThatExceptionOfType(MalformedControlRecordException.class)
			.isThrownBy(() -> ControlCodec.decode("leave/pod-7", "{\"v\":4}".getBytes(StandardCharsets.UTF_8)))
			.isNotInstanceOf(UnknownControlRecordKindException.class);
	}

	@Test
	void malformedValuesSayWhatIsWrong() {
		assertMalformed("leave/pod-7/a1", "not json", "is not JSON");
		assertMalformed("leave/pod-7/a1", "[1,2]", "is not a JSON object");
		assertMalformed("leave/pod-7/a1", "{\"incarnation\":\"a1\",\"requestedAt\":5}", "needs a number field 'v'");
		assertMalformed("leave/pod-7/a1", "{\"v\":2,\"requestedAt\":5}", "needs a text field 'incarnation'");
		assertMalformed("leave/pod-7/a1", "{\"v\":2,\"incarnation\":\"a1\",\"requestedAt\":\"soon\"}",
				"non-integer 'requestedAt'");
		assertMalformed("plan/pod-7/a", "{\"v\":2,\"incarnation\":\"a\",\"generation\":1,\"learning\":{\"0_1\":\"far\"}}",
				"has a non-integer lag of 0_1");
		assertMalformed("leave/pod-7/a1", "{\"v\":2,\"incarnation\":\"a1\",\"leaveId\":7,\"requestedAt\":5}",
				"needs a text field 'leaveId'");
		assertMalformed("plan/pod-7/a", "{\"v\":2,\"incarnation\":\"a\",\"epoch\":1}", "needs a number field 'generation'");
		assertMalformed("leave/pod-7/a1", "{\"v\":2,\"incarnation\":\"a1\",\"leaveId\":\"l1\",\"requestedAt\":5,"
				+ "\"ended\":{\"outcome\":\"drained\"}}", "needs a text field 'reason'");
		assertMalformed("something", "{\"v\":2}", "unknown key 'something'");
		assertMalformed("progress/pod-7", "{\"v\":2}", "unknown key 'progress/pod-7'");
		assertMalformed("progress/pod-7/a", "{\"v\":2,\"incarnation\":\"a\",\"at\":5}",
				"needs an array field 'learners'");
		assertMalformed("progress/pod-7/a", "{\"v\":2,\"incarnation\":\"a\",\"at\":5,\"learners\":[{\"task\":\"0_1\","
				+ "\"lag\":5,\"recordsPerSecond\":\"fast\"}]}", "without a number 'recordsPerSecond'");
	}

	private static void assertMalformed(String key, String value, String reason) {
		assertThatExceptionOfType(MalformedControlRecordException.class)
			.isThrownBy(() -> ControlCodec.decode(key, value.getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining(reason);
	}

	private static ControlRecord roundTrip(ControlRecord record) {
		return ControlCodec.decode(record.key(), ControlCodec.encodeValue(record)).orElseThrow();
	}

}
