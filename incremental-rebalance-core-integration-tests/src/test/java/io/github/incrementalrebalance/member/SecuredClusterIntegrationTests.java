package io.github.incrementalrebalance.member;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A secured cluster: clients authenticate with SASL/PLAIN and Kafka's standard authorizer allows the application's
 * principal only what ACLs grant. On the control topic it is granted exactly what the operating guide's Security
 * section documents, read from the guide itself; the rest is what any Kafka Streams application needs. Taking the ACLs
 * away is how a test cuts the control topic off while Kafka Streams keeps its own topics.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class SecuredClusterIntegrationTests {

	private static final String APPLICATION = "secured";

	private static final int PARTITIONS = 4;

	private static final Path GUIDE = Path.of("..", "docs", "operating.md");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withSaslAndAcls();

	@TempDir
	Path stateRoot;

	/**
	 * With the guide's ACLs a leave drains through learners; with the control topic's ACLs removed the members say
	 * which permissions they lack, a leave is refused as the control topic unavailable, the application keeps
	 * counting every record exactly, and a member that closes still leaves the group at once.
	 */
	@Test
	void drainsWithTheReadmesAclsAndWithoutThemSaysWhatIsMissingAndKeepsProcessing() throws Exception {
		CountingApplication application = new CountingApplication(broker, APPLICATION, PARTITIONS);
		String input = application.input();
		String output = application.output();
		String controlTopic = APPLICATION + "-rebalance-control";
		// "and Create, unless you create it": created here, so the guide's lines are all the control topic gets
		ControlTopic.ensureExists(broker.admin(), controlTopic, -1, true, Duration.ofSeconds(30));
		grantStreamsAcls(APPLICATION, input, output);
		List<AclBinding> guideAcls = guideControlTopicAcls(APPLICATION);
		assertThat(guideAcls).extracting((acl) -> acl.entry().operation())
			.containsExactlyInAnyOrder(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
		broker.admin().createAcls(guideAcls).all().get();

		TrackingProducer producer = application.producer(broker.superUserClientConfig());
		StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(APPLICATION), broker.userClientConfig());
		try (launcher; producer) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			StreamsInstance c = launcher.instance("c").memberRuntime().start();
			await("the group runs every task with its plan").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, b, c) && StreamsInstance.planSettled(a, b, c)
						&& StreamsInstance.activeTasksOf(a, b, c).size() == PARTITIONS);
			assertThat(a.runtime().controlTopicProblem()).isEmpty();
			producer.load(PARTITIONS, 200, 1);

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();
			b.awaitDrainedWarm(Duration.ofMinutes(1));
			await().atMost(Duration.ofSeconds(30)).until(() -> StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);

			broker.admin().deleteAcls(List.of(new AclBindingFilter(
					new ResourcePatternFilter(ResourceType.TOPIC, controlTopic, PatternType.LITERAL),
					AccessControlEntryFilter.ANY))).all().get();

			await("the members say what they lack").atMost(Duration.ofSeconds(45))
				.until(() -> a.runtime().controlTopicProblem().isPresent());
			assertThat(a.runtime().controlTopicProblem().orElseThrow()).contains(controlTopic)
				.contains("TopicAuthorizationException")
				.contains("needs Read, Write and Describe on the topic");
			assertThatExceptionOfType(LeaveRefusedException.class)
				.isThrownBy(() -> a.runtime().leave(Optional.empty(), "test"))
				.satisfies((refused) -> assertThat(refused.reason())
					.isEqualTo(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE));
			assertThat(a.runtime().state()).isEqualTo(MemberState.STABLE);

			producer.load(PARTITIONS, 200, 1);
			ExactCountVerifier.assertExactCounts(broker.superUserClientConfig(), output, producer.acknowledgedCounts(),
					Duration.ofMinutes(1));

			a.close();
			await("a left the group as it closed, long before its session timeout").atMost(Duration.ofSeconds(4))
				.until(() -> broker.groupMembers(APPLICATION).size() == 1);
			await().atMost(Duration.ofSeconds(30)).until(() -> StreamsInstance.activeTasksOf(c).size() == PARTITIONS);
		}
	}

	/**
	 * The control topic cut off (its ACLs removed) while a drain that a plan already acknowledged waits for its
	 * learners: the leaving member goes on leaving, without a deadline nothing forces it, and it says why it cannot
	 * follow the drain; once the ACLs are back and the learners ready, it hands over through them.
	 */
	@Test
	void controlTopicCutDuringAnAcknowledgedDrainWaitsSayingWhyAndDrainsOnceBack() throws Exception {
		CountingApplication application = new CountingApplication(broker, "cut", PARTITIONS);
		String input = application.input();
		String output = application.output();
		String controlTopic = "cut-rebalance-control";
		ControlTopic.ensureExists(broker.admin(), controlTopic, -1, true, Duration.ofSeconds(30));
		grantStreamsAcls(application.applicationId(), input, output);
		List<AclBinding> controlAcls = guideControlTopicAcls(application.applicationId());
		broker.admin().createAcls(controlAcls).all().get();
		RestoreThrottle held = RestoreThrottle.of(1);
		TrackingProducer producer = application.producer(broker.superUserClientConfig());
		StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(application.applicationId()),
				broker.userClientConfig())
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, 100L);
		try (launcher; producer) {
			StreamsInstance a = launcher.instance("a").restoreThrottle(held).memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			await("the group runs every task with its plan").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, b) && StreamsInstance.planSettled(a, b)
						&& !b.activeTasks().isEmpty() && StreamsInstance.activeTasksOf(a, b).size() == PARTITIONS);
			producer.load(PARTITIONS, 2_000, 1);
			ExactCountVerifier.assertExactCounts(broker.superUserClientConfig(), output, producer.acknowledgedCounts(),
					Duration.ofMinutes(1));

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();
			await("a plan acknowledges the leave, a learns b's tasks").atMost(Duration.ofSeconds(30))
				.until(() -> b.plan().map((plan) -> plan.leaving() && !plan.beingLearned().isEmpty()).orElse(false));

			broker.admin().deleteAcls(List.of(new AclBindingFilter(
					new ResourcePatternFilter(ResourceType.TOPIC, controlTopic, PatternType.LITERAL),
					AccessControlEntryFilter.ANY))).all().get();
			await("the leaving member says why it cannot follow its drain").atMost(Duration.ofSeconds(45))
				.until(() -> b.runtime().controlTopicProblem().isPresent());
			assertThat(b.runtime().controlTopicProblem().orElseThrow())
				.contains("needs Read, Write and Describe on the topic");
			assertThat(b.runtime().state()).as("no deadline: nothing forces it").isEqualTo(MemberState.LEAVING);

			broker.admin().createAcls(controlAcls).all().get();
			await("the control topic read again").atMost(Duration.ofSeconds(45))
				.until(() -> b.runtime().controlTopicProblem().isEmpty() && a.runtime().controlTopicProblem().isEmpty());
			assertThat(b.runtime().state()).isEqualTo(MemberState.LEAVING);
			held.release();

			b.awaitDrainedWarm(Duration.ofMinutes(1));
			ExactCountVerifier.assertExactCounts(broker.superUserClientConfig(), output, producer.acknowledgedCounts(),
					Duration.ofMinutes(1));
		}
	}

	/**
	 * What any Kafka Streams application with exactly these topics needs: its input, its output, its changelogs (a
	 * prefix that leaves the control topic out), its group.
	 */
	private static void grantStreamsAcls(String application, String input, String output)
			throws InterruptedException, ExecutionException {
		List<AclBinding> acls = new ArrayList<>();
		acls.add(allow(ResourceType.TOPIC, input, PatternType.LITERAL, AclOperation.READ));
		acls.add(allow(ResourceType.TOPIC, input, PatternType.LITERAL, AclOperation.DESCRIBE));
		acls.add(allow(ResourceType.TOPIC, output, PatternType.LITERAL, AclOperation.WRITE));
		acls.add(allow(ResourceType.TOPIC, output, PatternType.LITERAL, AclOperation.DESCRIBE));
		acls.add(allow(ResourceType.TOPIC, application + "-" + CountingTopology.STORE, PatternType.PREFIXED,
				AclOperation.ALL));
		acls.add(allow(ResourceType.GROUP, application, PatternType.LITERAL, AclOperation.READ));
		acls.add(allow(ResourceType.GROUP, application, PatternType.LITERAL, AclOperation.DESCRIBE));
		broker.admin().createAcls(acls).all().get();
	}

	/**
	 * The guide's {@code kafka-acls.sh} line for the application's principal ({@code User:orders}, on
	 * {@code orders-rebalance-control}), as bindings for this application and the broker's user.
	 */
	private static List<AclBinding> guideControlTopicAcls(String application) throws IOException {
		String guide = Files.readString(GUIDE);
		Matcher command = Pattern.compile("kafka-acls\\.sh [^\\n]*--allow-principal User:orders \\\\\\n([^\\n]*)")
			.matcher(guide);
		assertThat(command.find()).as("the guide's ACL line for the application's principal").isTrue();
		String options = command.group(1);
		Matcher topic = Pattern.compile("--topic (\\S+)").matcher(options);
		assertThat(topic.find()).isTrue();
		assertThat(topic.group(1)).isEqualTo("orders-rebalance-control");
		List<AclBinding> acls = new ArrayList<>();
		Matcher operation = Pattern.compile("--operation (\\w+)").matcher(options);
		while (operation.find()) {
			acls.add(allow(ResourceType.TOPIC, application + "-rebalance-control", PatternType.LITERAL,
					AclOperation.fromString(operation.group(1))));
		}
		return acls;
	}

	private static AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation operation) {
		return new AclBinding(new ResourcePattern(type, name, pattern),
				new AccessControlEntry("User:" + KafkaBroker.USER, "*", operation, AclPermissionType.ALLOW));
	}

}
