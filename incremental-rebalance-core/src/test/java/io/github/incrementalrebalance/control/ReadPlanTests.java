package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ReadPlanTests {

	@Test
	void aPlanIsReadForItsGenerationAndDecodedWhenFirstAskedFor() {
		PlanRecord written = MemberPlanBuilder.plan("pod-7", "k3j9").active("0_1", "1_10").learning("0_3", 9_000)
			.record(12);

		ReadPlan read = ReadPlan.peek(written.key(), ControlCodec.encodeValue(written));

		assertThat(read.generation()).isEqualTo(12);
		assertThat(read.record()).contains(written);
	}

	/** Its generation is all the reader needs to file it; what else is wrong shows when the plan is asked for. */
	@Test
	void aPlanThatDoesNotDecodeIsSkippedWithAWarnWhenAskedFor() {
		byte[] value = "{\"v\":3,\"incarnation\":\"k3j9\",\"generation\":12,\"active\":\"0_1\"}"
			.getBytes(StandardCharsets.UTF_8);
		ReadPlan read = ReadPlan.peek("plan/pod-7/k3j9", value);
		assertThat(read.generation()).isEqualTo(12);
		try (LogCapture log = LogCapture.of(ReadPlan.class)) {
			assertThat(read.record()).isEmpty();
			assertThat(log.messages(Level.WARN)).singleElement().satisfies((message) -> assertThat(message)
				.contains("plan/pod-7/k3j9").contains("has a 'active' that starts with neither z1: nor v1:"));
		}
	}

	@Test
	void aValueWithoutAVersionReadOrAGenerationIsMalformedAtOnce() {
		assertThatExceptionOfType(MalformedControlRecordException.class)
			.isThrownBy(() -> ReadPlan.peek("plan/a/1", "{\"v\":1,\"generation\":3}".getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining("has version 1, which no release wrote");
		assertThatExceptionOfType(MalformedControlRecordException.class)
			.isThrownBy(() -> ReadPlan.peek("plan/a/1", "{\"v\":3,\"active\":[]}".getBytes(StandardCharsets.UTF_8)))
			.withMessage("value of 'plan/a/1' needs a number field 'generation'");
		assertThatExceptionOfType(MalformedControlRecordException.class)
			.isThrownBy(() -> ReadPlan.peek("plan/a/1", "[3]".getBytes(StandardCharsets.UTF_8)))
			.withMessage("value of 'plan/a/1' is not a JSON object");
	}

}
