package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.assignor.HandOverReason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ControlCodecTests {

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
	}

	@Test
	void leaveRecordOfVersionOneGetsAnIdentityEveryReaderDerivesAlike() {
		byte[] value = "{\"v\":1,\"incarnation\":\"a1\",\"requestedAt\":5,\"deadline\":60005,\"source\":\"cli\"}"
			.getBytes(StandardCharsets.UTF_8);
		LeaveRecord read = (LeaveRecord) ControlCodec.decode("leave/pod-7", value).orElseThrow();
		assertThat(read).isEqualTo(new LeaveRecord("pod-7", "a1", "v1-5", Instant.ofEpochMilli(5),
				Optional.of(Instant.ofEpochMilli(60005)), "cli", false));
		assertThat(read.timeout()).contains(Duration.ofMinutes(1));
	}

	@Test
	void planOfVersionOneActsOnAnyLeaveOfTheMemberAndAnEchoOnlyOnItsOwn() {
		byte[] v1 = "{\"v\":1,\"incarnation\":\"a\",\"epoch\":1,\"leaving\":true}".getBytes(StandardCharsets.UTF_8);
		PlanRecord legacy = (PlanRecord) ControlCodec.decode("plan/pod-7", v1).orElseThrow();
		assertThat(legacy.leaveId()).isEmpty();
		assertThat(legacy.actsOn("any")).isTrue();
		PlanRecord echoing = new PlanRecord("pod-7", "a", 2, List.of(), Map.of(), List.of(), List.of(), List.of(), true,
				Optional.of("l1"), Optional.empty());
		assertThat(echoing.actsOn("l1")).isTrue();
		assertThat(echoing.actsOn("l2")).as("a plan for an earlier leave of the member").isFalse();
	}

	@Test
	void planRecordAndEpochRoundTrip() {
		PlanRecord plan = new PlanRecord("pod-7", "k3j9", NOW.toEpochMilli(), List.of("0_1"), Map.of("0_2", 12L, "0_3", 9000L),
				List.of("0_2"), List.of("0_1"), List.of("0_4"), true, Optional.of("l1"),
				Optional.of(HandOverReason.LEARNERS_READY));
		assertThat(roundTrip(plan)).isEqualTo(plan);
		PlanEpoch epoch = new PlanEpoch(NOW.toEpochMilli(), "pod-1", NOW, "moved none", List.of("pod-3"));
		assertThat(roundTrip(epoch)).isEqualTo(epoch);
	}

	@Test
	void tombstoneDecodesToNothing() {
		assertThat(ControlCodec.decode("leave/pod-7", null)).isEmpty();
	}

	@Test
	void newerVersionsExtraFieldsAreIgnored() {
		byte[] value = ("{\"v\":3,\"incarnation\":\"a1\",\"leaveId\":\"l1\",\"requestedAt\":5,\"source\":\"cli\","
				+ "\"reason\":\"x\"}").getBytes(StandardCharsets.UTF_8);
		assertThat(ControlCodec.decode("leave/pod-7", value)).contains(
				new LeaveRecord("pod-7", "a1", "l1", Instant.ofEpochMilli(5), Optional.empty(), "cli", false));
	}

	@Test
	void malformedValuesSayWhatIsWrong() {
		assertMalformed("leave/pod-7", "not json", "is not JSON");
		assertMalformed("leave/pod-7", "[1,2]", "is not a JSON object");
		assertMalformed("leave/pod-7", "{\"incarnation\":\"a1\",\"requestedAt\":5}", "needs a number field 'v'");
		assertMalformed("leave/pod-7", "{\"v\":1,\"requestedAt\":5}", "needs a text field 'incarnation'");
		assertMalformed("leave/pod-7", "{\"v\":1,\"incarnation\":\"a1\",\"requestedAt\":\"soon\"}",
				"non-integer 'requestedAt'");
		assertMalformed("plan/pod-7", "{\"v\":1,\"incarnation\":\"a\",\"epoch\":1,\"handOver\":\"BECAUSE\"}", "unknown handOver 'BECAUSE'");
		assertMalformed("leave/pod-7", "{\"v\":2,\"incarnation\":\"a1\",\"leaveId\":7,\"requestedAt\":5}",
				"non-text 'leaveId'");
		assertMalformed("something", "{\"v\":1}", "unknown key 'something'");
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
