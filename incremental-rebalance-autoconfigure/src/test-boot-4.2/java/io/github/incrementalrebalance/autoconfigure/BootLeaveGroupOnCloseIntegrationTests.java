package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Boot 4.2's {@code spring.kafka.streams.leave-group-on-close} beside the starter's
 * {@code incremental-rebalance.leave.on-close}: Boot applies its property to every factory bean it configures, and
 * {@code true} closes Kafka Streams with an explicit leave, which the member honours whatever its own policy says
 * (even a static member's close is then a leave); Boot's default, {@code false}, is spring-kafka's stay in the group,
 * which the member's policy replaces. Two instances of a counting application on a real broker, the second closed.
 */
@Tag(TestTags.BROKER)
class BootLeaveGroupOnCloseIntegrationTests {

	private static final int PARTITIONS = 2;

	/** The test instances' session: a member that stayed in the group is still listed long after its close. */
	private static final Duration SESSION = Duration.ofSeconds(20);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void bootsLeaveGroupOnCloseLeavesWhereTheMembersOwnPolicySaysStay() {
		closeB("boot-leaves", () -> await("b left the group as it closed, long before its session ended")
			.atMost(SESSION.dividedBy(2))
			.until(() -> broker.groupMembers("boot-leaves").size() == 1),
				"spring.kafka.streams.leave-group-on-close=true");
	}

	@Test
	void bootsDefaultLeavesTheChoiceToTheMembersPolicy() {
		closeB("boot-default", () -> await("b stays in the group after its close, as its policy says")
			.during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(5))
			.until(() -> broker.groupMembers("boot-default").size() == 2));
	}

	/**
	 * Start a and b with {@code leave.on-close=false}, close b, then check the group.
	 */
	private void closeB(String application, Runnable check, String... more) {
		broker.createTopics(PARTITIONS, application + "-input", application + "-output");
		String[] properties = new String[more.length + 2];
		properties[0] = "incremental-rebalance.leave.on-close=false";
		properties[1] = "spring.kafka.streams.properties.consumer.session.timeout.ms=" + SESSION.toMillis();
		System.arraycopy(more, 0, properties, 2, more.length);
		try (ConfigurableApplicationContext a = CountingBootApplication.start(broker, application, "a", this.stateRoot,
				null, false, properties)) {
			ConfigurableApplicationContext b = CountingBootApplication.start(broker, application, "b", this.stateRoot,
					null, false, properties);
			await("both run a task").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && activeTasks(a).size() == 1 && activeTasks(b).size() == 1);
			assertThat(broker.groupMembers(application)).hasSize(2);
			b.close();
			check.run();
		}
	}

}
