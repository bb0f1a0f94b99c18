package io.github.incrementalrebalance.config;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BackoffTests {

	@Test
	void pausesDoubleUpToTheCapAndStartOverForANewFault() {
		Backoff backoff = Backoff.doubling(Duration.ofMillis(200), Duration.ofSeconds(1));
		assertThat(backoff.pause()).isEqualTo(Duration.ofMillis(200));
		assertThat(backoff.next().pause()).isEqualTo(Duration.ofMillis(400));
		assertThat(backoff.next().next().pause()).isEqualTo(Duration.ofMillis(800));
		assertThat(backoff.next().next().next().pause()).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.next().next().next().next().pause()).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.next().next().reset()).isEqualTo(backoff);
	}

	@Test
	void aLongerCapLetsThePauseDoubleOnFromWhereItIs() {
		Backoff capped = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(8)).next().next().next().next();
		assertThat(capped.pause()).isEqualTo(Duration.ofSeconds(8));
		Backoff longer = capped.upTo(Duration.ofSeconds(60));
		assertThat(longer.pause()).isEqualTo(Duration.ofSeconds(8));
		assertThat(longer.next().next().pause()).isEqualTo(Duration.ofSeconds(32));
		assertThat(longer.next().next().next().pause()).isEqualTo(Duration.ofSeconds(60));
		assertThat(capped.upTo(Duration.ofSeconds(2))).as("a shorter cap keeps the back-off").isEqualTo(capped);
	}

	@Test
	void thePauseAfterSomeFailuresInARowDoublesFromTheFirstUpToTheCap() {
		Backoff backoff = Backoff.doubling(Duration.ofSeconds(1), Duration.ofMinutes(1));
		assertThat(backoff.pauseAfter(0)).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.pauseAfter(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.pauseAfter(3)).isEqualTo(Duration.ofSeconds(4));
		assertThat(backoff.pauseAfter(7)).isEqualTo(Duration.ofMinutes(1));
		assertThat(backoff.pauseAfter(Long.MAX_VALUE)).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void aPauseThatIsNotPositiveOrACapBelowTheFirstPauseIsRefusedWithBoth() {
		assertThatIllegalArgumentException().isThrownBy(() -> Backoff.doubling(Duration.ZERO, Duration.ofSeconds(1)))
			.withMessageContaining("PT0S").withMessageContaining("PT1S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Backoff.doubling(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessageContaining("positive first pause no longer than its cap");
	}

}
