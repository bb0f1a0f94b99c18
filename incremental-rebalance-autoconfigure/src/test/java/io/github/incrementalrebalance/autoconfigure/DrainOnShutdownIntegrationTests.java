package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Spring Boot applications in one JVM on a real broker: closing the context of one that has
 * {@code incremental-rebalance.drain-on-shutdown=true} (what SIGTERM does) drains it through the other before its
 * Kafka Streams closes.
 */
class DrainOnShutdownIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void normalShutdownDrainsFirst() {
		broker.createTopics(PARTITIONS, "shutdown-app-input", "shutdown-app-output");
		try (ConfigurableApplicationContext a = start("a", false); ConfigurableApplicationContext b = start("b", true)) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			MemberRuntime drained = b.getBean(MemberRuntimes.class).all().get(0);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			drained.addStateListener(states::add);

			b.close();

			assertThat(states).as("b drained before its Kafka Streams closed")
				.containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.STABLE);
		}
	}

	private ConfigurableApplicationContext start(String name, boolean drainOnShutdown) {
		return CountingBootApplication.start(broker, "shutdown-app", name, this.stateRoot, null, false,
				"incremental-rebalance.drain-on-shutdown=" + drainOnShutdown,
				"incremental-rebalance.scale-down-timeout=30s");
	}

}
