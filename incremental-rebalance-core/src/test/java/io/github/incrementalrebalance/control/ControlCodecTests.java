package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
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
	void leaveRecordRoundTrips() {
		LeaveRecord leave = new LeaveRecord("pod-7", "k3j9", NOW, Optional.of(NOW.plusSeconds(60)), "endpoint");
		assertThat(roundTrip(leave)).isEqualTo(leave);
		LeaveRecord unbounded = new LeaveRecord("pod-7", "k3j9", NOW, Optional.empty(), "cli");
		assertThat(roundTrip(unbounded)).isEqualTo(unbounded);
	}

	@Test
	void planRecordAndEpochRoundTrip() {
		PlanRecord plan = new PlanRecord("pod-7", "k3j9", NOW.toEpochMilli(), List.of("0_1"), Map.of("0_2", 12L, "0_3", 9000L),
				List.of("0_2"), List.of("0_1"), List.of("0_4"), true, Optional.of(HandOverReason.LEARNERS_READY));
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
		byte[] value = "{\"v\":2,\"incarnation\":\"a1\",\"requestedAt\":5,\"source\":\"cli\",\"reason\":\"x\"}"
			.getBytes(StandardCharsets.UTF_8);
		assertThat(ControlCodec.decode("leave/pod-7", value)).contains(
				new LeaveRecord("pod-7", "a1", Instant.ofEpochMilli(5), Optional.empty(), "cli"));
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
