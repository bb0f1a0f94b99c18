package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.ObjectName;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.StartRefusedException;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.testkit.InMemoryControlView;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.planner.GroupMember;
import io.github.incrementalrebalance.planner.GroupTask;
import io.github.incrementalrebalance.planner.PlacementPolicy;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.AbstractApplicationContext;
import org.springframework.context.support.DefaultLifecycleProcessor;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.KafkaStreamsConfiguration;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class IncrementalRebalanceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(KafkaAutoConfiguration.class, IncrementalRebalanceAutoConfiguration.class))
		// no cluster here: the rejoin request a member writes once its Kafka Streams are built waits for one at most
		// the control topic's timeout, at the context's close
		.withPropertyValues("spring.kafka.streams.application-id=app", "spring.kafka.streams.auto-startup=false",
				"incremental-rebalance.control-topic.timeout=1s");

	@Test
	void streamsAreBuiltWithTheMemberClientSupplierAroundTheFactoryBeansSupplier() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class).run((context) -> {
			RecordingSupplier passed = new RecordingSupplier();
			MemberRuntime runtime = buildStreams(context, "defaultKafkaStreamsBuilder", passed);
			assertThat(passed.mainConsumers).as("the supplier spring-kafka passes still makes the clients").isNotEmpty();
			assertThat(runtime.rebalanceTrigger()).as("the member supplier made the main consumers").isPresent();
		});
	}

	/**
	 * The drain on shutdown gets a lifecycle phase of its own, its drain timeout and the close allowance, while every
	 * other phase keeps {@code spring.lifecycle.timeout-per-shutdown-phase}; it exists whatever {@code on-shutdown}
	 * says, which it reads when the shutdown comes (a leave under way then goes on either way).
	 */
	@Test
	void theDrainOnShutdownHasAShutdownPhaseOfItsOwnOfTheDrainTimeoutAndTheCloseAllowance() {
		ApplicationContextRunner drains = this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withBean(AbstractApplicationContext.LIFECYCLE_PROCESSOR_BEAN_NAME, PhaseTimeouts.class,
					PhaseTimeouts::new);
		drains.run((context) -> {
			assertThat(drainBound(context)).as("unset: 15 s").isEqualTo(Duration.ofSeconds(15));
			assertThat(phaseTimeout(context, DrainOnShutdown.PHASE)).as("with 5 s to close: 20 s of a 30 s grace")
				.isEqualTo(Duration.ofSeconds(20));
			assertThat(phaseTimeout(context, DrainOnShutdown.PHASE - 1)).as("another phase keeps Spring's")
				.isEqualTo(PhaseTimeouts.OTHER_PHASES);
		});
		drains.withPropertyValues("incremental-rebalance.drain.timeout=5m",
				"spring.lifecycle.timeout-per-shutdown-phase=20s")
			.run((context) -> {
				assertThat(drainBound(context)).as("the drain timeout, not the other phases' 20 s")
					.isEqualTo(Duration.ofMinutes(5));
				assertThat(phaseTimeout(context, DrainOnShutdown.PHASE)).isEqualTo(Duration.ofSeconds(305));
			});
		drains.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.drain.timeout.ms=7000")
			.run((context) -> assertThat(phaseTimeout(context, DrainOnShutdown.PHASE)).as("the Kafka key")
				.isEqualTo(Duration.ofSeconds(12)));
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.run((context) -> assertThat(context).as("on-shutdown is read when the shutdown comes")
				.hasSingleBean(DrainOnShutdown.class));
	}

	/**
	 * {@code auto-startup=false}: Kafka Streams the application never started have nothing to hand over, and a
	 * shutdown says nothing of a drain it could not make.
	 */
	@Test
	void aShutdownOfKafkaStreamsThatNeverStartedDrainsNothingAndSaysNothing() {
		try (LogCapture log = LogCapture.of(DrainOnShutdown.class)) {
			this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
				.withPropertyValues("incremental-rebalance.drain.on-shutdown=true")
				.run((context) -> {
					MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
					assertThat(runtime.streamsState()).as("not started").isEmpty();
					context.close();
					assertThat(runtime.state()).isEqualTo(MemberState.STABLE);
				});
			assertThat(log.messages(Level.WARN)).isEmpty();
		}
	}

	private static Duration drainBound(AssertableApplicationContext context) {
		return DrainOnShutdown.bound(context.getBean(MemberRuntimes.class).all().get(0));
	}

	private static Duration phaseTimeout(AssertableApplicationContext context, int phase) {
		return Duration.ofMillis(context.getBean(PhaseTimeouts.class).timeoutOf(phase));
	}

	/** Spring's lifecycle processor, saying what each shutdown phase was given. */
	static class PhaseTimeouts extends DefaultLifecycleProcessor {

		static final Duration OTHER_PHASES = Duration.ofSeconds(30);

		private final Map<Integer, Long> ownTimeouts = new ConcurrentHashMap<>();

		PhaseTimeouts() {
			setTimeoutPerShutdownPhase(OTHER_PHASES.toMillis());
		}

		@Override
		public void setTimeoutForShutdownPhase(int phase, long timeout) {
			super.setTimeoutForShutdownPhase(phase, timeout);
			this.ownTimeouts.put(phase, timeout);
		}

		long timeoutOf(int phase) {
			return this.ownTimeouts.getOrDefault(phase, OTHER_PHASES.toMillis());
		}

	}

	@Test
	void memberClientSupplierMakesClientsWithTheApplicationsSupplierBean() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withBean(KafkaClientSupplier.class, RecordingSupplier::new)
			.run((context) -> {
				RecordingSupplier bean = (RecordingSupplier) context.getBean(KafkaClientSupplier.class);
				buildStreams(context, "defaultKafkaStreamsBuilder", new DefaultKafkaClientSupplier());
				assertThat(bean.mainConsumers).isNotEmpty();
			});
	}

	@Test
	void streamsRunTheLearnerAssignorAndNameTheMember() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.instance.id=pod-7")
			.run((context) -> {
				Properties streams = context.getBean("&defaultKafkaStreamsBuilder", StreamsBuilderFactoryBean.class)
					.getStreamsConfiguration();
				assertThat(streams).containsEntry(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG,
						LearnerTaskAssignor.class.getName());
				assertThat(streams).containsEntry(StreamsConfig.CLIENT_TAG_PREFIX + MemberIdentity.INSTANCE_TAG, "pod-7");
				assertThat(context.getBean(MemberRuntimes.class).all()).singleElement()
					.satisfies((runtime) -> assertThat(runtime.identity().instanceId()).isEqualTo("pod-7"));
			});
	}

	@Test
	void propertiesBecomeTheLibrarysKeys() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.mode=UPGRADING", "incremental-rebalance.drain.timeout=90s",
					"incremental-rebalance.placement.balancing-factor=1.5", "incremental-rebalance.drain.hand-over=eager",
					"incremental-rebalance.learners.probe-interval=10s", "incremental-rebalance.instance-id=pod-3",
					"incremental-rebalance.learners.progress-interval=5s",
					"incremental-rebalance.control-topic.name=ops-control",
					"incremental-rebalance.control-topic.create=false", "incremental-rebalance.control-topic.timeout=30s",
					"incremental-rebalance.placement.task-weight=state-size",
					"incremental-rebalance.placement.task-weight-timeout=20s")
			.run((context) -> assertThat(streamsConfiguration(context))
				.containsEntry("incremental.rebalance.mode", "upgrading")
				.containsEntry("incremental.rebalance.drain.timeout.ms", 90_000L)
				.containsEntry("incremental.rebalance.balancing.factor", 1.5)
				.containsEntry("incremental.rebalance.drain.hand.over", "eager")
				.containsEntry("incremental.rebalance.learner.probe.interval.ms", 10_000L)
				.containsEntry("incremental.rebalance.progress.interval.ms", 5_000L)
				.containsEntry("incremental.rebalance.instance.id", "pod-3")
				.containsEntry("incremental.rebalance.control.topic", "ops-control")
				.containsEntry("incremental.rebalance.control.topic.create", false)
				.containsEntry("incremental.rebalance.control.topic.timeout.ms", 30_000L)
				.containsEntry("incremental.rebalance.task.weight", "state-size")
				.containsEntry("incremental.rebalance.task.weight.timeout.ms", 20_000L)
				.doesNotContainKey(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG));
	}

	@Test
	void unsetPropertiesLeaveTheKafkaStyleKeysAndTheDefaults() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.drain.hand.over=eager")
			.run((context) -> {
				assertThat(streamsConfiguration(context)).containsEntry("incremental.rebalance.drain.hand.over", "eager")
					.doesNotContainKeys("incremental.rebalance.mode", "incremental.rebalance.balancing.factor");
				IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
				assertThat(properties.drain().onDrained()).isEqualTo(IncrementalRebalanceProperties.OnDrained.SHUTDOWN);
				assertThat(properties.drain().onShutdown()).isFalse();
			});
	}

	@Test
	void propertyWinsOverItsKafkaStyleKey() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.drain.hand.over=eager",
					"incremental-rebalance.drain.hand-over=conservative")
			.run((context) -> assertThat(streamsConfiguration(context)).containsEntry("incremental.rebalance.drain.hand.over",
					"conservative"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			placement.balancing-factor=0.5 | incremental-rebalance.placement.balancing-factor is 0.5: use a number of at least 1
			control-topic.timeout=0s | incremental-rebalance.control-topic.timeout is PT0S: use a duration of 1ms to 24d
			placement.task-weight-timeout=30d | placement.task-weight-timeout is PT720H: use a duration of 1ms to 24d
			""")
	void invalidPropertyStopsStartUpNamingItAndWhatIsAccepted(String setting, String message) {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance." + setting)
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining(message));
	}

	@Test
	void invalidKafkaStyleKeyStopsStartUpNamingIt() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.balancing.factor=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("incremental.rebalance.balancing.factor")
				.hasMessageContaining("at least 1.0"));
	}

	@Test
	void streamsGroupProtocolStartsTheRuntimeInTheModeItSupportsThere() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.group.protocol=streams")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(MemberRuntimes.class).all()).singleElement()
					.satisfies((runtime) -> assertThat(runtime.groupProtocol()).isEqualTo(GroupProtocol.STREAMS));
				assertThat(factoryBean(context, "defaultKafkaStreamsBuilder").getStreamsConfiguration())
					.as("the broker assigns: no client-side assignor is set")
					.doesNotContainKey(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG);
			});
	}

	@Test
	void ownTaskAssignorStopsStartUpInModeIncrementalAndTheFailureAnalyzerSaysWhatToSet() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.task.assignor.class=com.example.MyAssignor")
			.run((context) -> {
				assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("task.assignor.class is set to com.example.MyAssignor");
				FailureAnalysis analysis = new StartRefusedFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("with task.assignor.class: task.assignor.class is set "
						+ "to com.example.MyAssignor");
				assertThat(analysis.getAction()).startsWith("Set instead: no task.assignor.class (it is set for you), "
						+ "or incremental.rebalance.mode=upgrading");
			});
	}

	@Test
	void theFailureAnalyzerIsRegistered() {
		// Boot's own analyzers that need the context's bean factory cannot be made here: they are passed over
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
			})))
			.hasAtLeastOneElementOfType(StartRefusedFailureAnalyzer.class);
	}

	@Test
	void rackAwareStrategyWithoutClientRackIsWarnedOfAtStart() {
		try (LogCapture log = LogCapture.ofPackageOf(MemberRuntime.class)) {
			this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
				.withPropertyValues("spring.kafka.streams.properties.rack.aware.assignment.strategy=min_traffic")
				.run((context) -> assertThat(log.messages(Level.WARN)).singleElement()
					.asString()
					.contains("rack.aware.assignment.strategy=min_traffic needs client.rack on every member"));
		}
	}

	@Test
	void rackAwareStrategyWithClientRackIsAppliedWithoutWarning() {
		try (LogCapture log = LogCapture.ofPackageOf(MemberRuntime.class)) {
			this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
				.withPropertyValues("spring.kafka.streams.properties.rack.aware.assignment.strategy=min_traffic",
						"spring.kafka.streams.properties.client.rack=zone-a")
				.run((context) -> assertThat(log.messages(Level.WARN)).isEmpty());
		}
	}

	@Test
	void placementPolicyBecomesItsKafkaStyleKey() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.placement.policy=" + KeepOffSmallHosts.class.getName())
			.run((context) -> assertThat(streamsConfiguration(context))
				.containsEntry("incremental.rebalance.placement.policy.class", KeepOffSmallHosts.class));
	}

	@Test
	void taskWeightBecomesItsKafkaStyleKey() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.placement.task-weight=state-size")
			.run((context) -> assertThat(streamsConfiguration(context))
				.containsEntry("incremental.rebalance.task.weight", "state-size"));
	}

	@Test
	void leaveBoundsBecomeTheirKafkaStyleKeys() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.leave.acknowledgement-timeout=2m",
					"incremental-rebalance.leave.unanswered=leave", "incremental-rebalance.drain.stall-timeout=90s",
					"incremental-rebalance.drain.restores-per-member=2", "incremental-rebalance.drain.restores-in-group=5")
			.run((context) -> assertThat(streamsConfiguration(context))
				.containsEntry("incremental.rebalance.leave.acknowledgement.timeout.ms", 120_000L)
				.containsEntry("incremental.rebalance.leave.unanswered", "leave")
				.containsEntry("incremental.rebalance.drain.stall.timeout.ms", 90_000L)
				.containsEntry("incremental.rebalance.drain.restores.per.member", 2)
				.containsEntry("incremental.rebalance.drain.restores.in.group", 5));
	}

	@ParameterizedTest
	@CsvSource({ "drain.restores-per-member, 0", "drain.restores-in-group, -1" })
	void aDrainRestoreCapBelowOneStopsStartUpNamingWhatIsAccepted(String cap, int value) {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance." + cap + "=" + value)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("incremental-rebalance." + cap + " is " + value + ": use an integer of at least 1, or "
						+ "unset"));
	}

	@Test
	void taskWeightKeyOfNoKnownKindStopsStartUpNamingItAndTheKinds() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.task.weight=bytes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Invalid value bytes for configuration incremental.rebalance.task.weight")
				.hasMessageContaining("COUNT")
				.hasMessageContaining("STATE-SIZE"));
	}

	@Test
	void placementPolicyThatIsNoPolicyStopsStartUpNamingIt() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.placement.policy=java.lang.String")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("incremental-rebalance.placement.policy is java.lang.String: use a class "
						+ "implementing io.github.incrementalrebalance.planner.PlacementPolicy"));
	}

	@Test
	void placementPolicyKeyThatCannotBeMadeStopsStartUpNamingIt() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.placement.policy.class="
					+ NoDefaultConstructor.class.getName())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("incremental.rebalance.placement.policy.class")
				.hasMessageContaining("with a public no-argument constructor"));
	}

	@Test
	void healthIsUpAndNamesTheMembersState() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceHealthAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.instance-id=pod-7")
			.run((context) -> {
				Health health = context.getBean(RebalanceHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsKey("app");
				assertThat(health.getDetails().get("app").toString()).contains("instanceId=pod-7").contains("STABLE");
			});
	}

	@Test
	void noClientIsMadeBeforeTheFactoryBeanStarts() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.application-id=idle-app")
			.run((context) -> {
				assertThat(context).hasSingleBean(MemberRuntimes.class);
				assertThat(ManagementFactory.getPlatformMBeanServer()
					.queryNames(new ObjectName("kafka.*:type=app-info,*"), null)
					.stream()
					.map(ObjectName::toString))
					.as("Kafka clients registered").noneMatch((name) -> name.contains("idle-app"));
			});
	}

	@Test
	void healthSaysWhileTheAssignorFallsBackStayingUpByDefaultAndClearsOnceItPlansAgain() {
		healthWhileTheAssignorFallsBack(Status.UP);
	}

	@Test
	void healthTakesTheStatusAnOperatorRoutesOnWhileTheAssignorFallsBack() {
		healthWhileTheAssignorFallsBack(Status.OUT_OF_SERVICE, "incremental-rebalance.health.problem-status=out_of_service");
	}

	private void healthWhileTheAssignorFallsBack(Status expected, String... properties) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceHealthAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues(properties)
			.run((context) -> {
				MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
				ControlView broken = () -> {
					throw new IllegalStateException("leave requests unreadable");
				};
				RoundSimulator group = new RoundSimulator().statefulTasks(2, 100)
					.running("a", 1, new TaskId(0, 0))
					.running("b", 1, new TaskId(0, 1))
					.learnerSetting(AssignorStatus.CONFIG, runtime.assignorStatus())
					.learnerSetting(ControlView.CONFIG, broken);
				group.rebalance();

				Health fallingBack = context.getBean(RebalanceHealthIndicator.class).health(true);
				assertThat(fallingBack.getStatus()).isEqualTo(expected);
				assertThat(fallingBack.getDetails().get("app").toString())
					.contains("problem=the last assignment fell back to Kafka's sticky assignor (leave requests unreadable)");

				group.learnerSetting(ControlView.CONFIG, new InMemoryControlView()).rebalance();
				Health planning = context.getBean(RebalanceHealthIndicator.class).health(true);
				assertThat(planning.getStatus()).isEqualTo(Status.UP);
				assertThat(planning.getDetails().get("app").toString()).doesNotContain("problem=");
			});
	}

	@Test
	void aBlankProblemHealthStatusIsRefusedNamingWhatIsAccepted() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceHealthAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.health.problem-status= ")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("incremental-rebalance.health.problem-status")
				.hasMessageContaining("UP, DOWN, OUT_OF_SERVICE or a status of your own"));
	}

	@Test
	void healthAndMetersSayWhenTasksWeighedOneBecauseTheChangelogSizesWereUnreadable() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(RebalanceHealthAutoConfiguration.class,
					RebalanceMetricsAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				context.getBean(RebalanceMetrics.class).bindTo(registry);
				RoundSimulator group = new RoundSimulator().statefulTasks(2, 100)
					.running("a", 1, new TaskId(0, 0))
					.running("b", 1, new TaskId(0, 1))
					.learnerSetting(LearnerConfig.TASK_WEIGHT_CONFIG, "state-size")
					.learnerSetting(AssignorStatus.CONFIG, runtime.assignorStatus())
					.changelogSizesFail("listOffsets timed out");
				group.rebalance();

				Health health = context.getBean(RebalanceHealthIndicator.class).health(true);
				assertThat(health.getStatus()).as("tasks still move through learners").isEqualTo(Status.UP);
				assertThat(health.getDetails().get("app").toString())
					.contains("taskWeight=count, not state-size: listOffsets timed out");
				assertThat(registry.find("incremental.rebalance.assignor.weighed.by.count").functionCounter().count())
					.isOne();

				group.changelogSizesFail(null).rebalance();
				assertThat(context.getBean(RebalanceHealthIndicator.class).health(true).getDetails().get("app").toString())
					.doesNotContain("taskWeight");
			});
	}

	@Test
	void endpointAndItsWebExtensionWhenExposedOverHttp() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceEndpointAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=rebalance")
			.run((context) -> assertThat(context).hasSingleBean(RebalanceEndpoint.class)
				.hasSingleBean(RebalanceEndpointWebExtension.class));
	}

	@Test
	void endpointWithoutTheWebExtensionWhenExposedOverJmxOnly() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceEndpointAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=rebalance")
			.run((context) -> assertThat(context).hasSingleBean(RebalanceEndpoint.class)
				.doesNotHaveBean(RebalanceEndpointWebExtension.class));
	}

	@Test
	void endpointBacksOffWhenNotExposedOrItsAccessIsNone() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceEndpointAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(RebalanceEndpoint.class));
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceEndpointAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=rebalance",
					"management.endpoint.rebalance.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RebalanceEndpoint.class)
				.doesNotHaveBean(RebalanceEndpointWebExtension.class));
	}

	@Test
	void healthBacksOffWhenSwitchedOff() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceHealthAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("management.health.rebalance.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RebalanceHealthIndicator.class));
	}

	@Test
	void metersAreBoundWhenARegistryExists() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceMetricsAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				context.getBean(RebalanceMetrics.class).bindTo(registry);
				assertThat(registry.find("incremental.rebalance.tasks").gauges()).hasSize(4);
				assertThat(registry.find("incremental.rebalance.learner.lag.max").gauge()).isNotNull();
				assertThat(registry.find("incremental.rebalance.drain.eta").gauge().value()).as("not leaving").isNaN();
				assertThat(registry.find("incremental.rebalance.enforced").functionCounter()).isNotNull();
				assertThat(registry.find("incremental.rebalance.assignor.fallbacks").functionCounter()).isNotNull();
				assertThat(registry.find("incremental.rebalance.rounds").functionCounters())
					.extracting((counter) -> counter.getId().getTag("cause"))
					.containsExactlyInAnyOrder("leave", "cancel", "learners-ready", "join", "follow", "application");
				assertThat(registry.find("incremental.rebalance.assignments.unchanged").functionCounter()).isNotNull();
			});
	}

	/**
	 * A member registered after the meters were bound (a factory bean created later) gets its meters too, among them
	 * the member's state, which an alert reads to find a pod left up out of its group.
	 */
	@Test
	void aMemberRegisteredAfterTheMetersWereBoundGetsItsMeters() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceMetricsAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withBean(SimpleMeterRegistry.class)
			.run((context) -> {
				SimpleMeterRegistry registry = context.getBean(SimpleMeterRegistry.class);
				context.getBean(RebalanceMetrics.class).bindTo(registry);
				Properties config = new Properties();
				config.put(StreamsConfig.APPLICATION_ID_CONFIG, "late");
				config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
				config.put(LearnerConfig.INSTANCE_ID_CONFIG, "late-member");
				try (MemberRuntime late = MemberRuntime.create(config)) {
					context.getBean(MemberRuntimes.class).register("lateStreamsBuilder", late);
					assertThat(registry.find("incremental.rebalance.tasks").tag("application.id", "late").gauges())
						.hasSize(4);
					assertThat(registry.find("incremental.rebalance.member.state")
						.tags("application.id", "late", "state", "stable")
						.gauge()
						.value()).isEqualTo(1);
					assertThat(registry.find("incremental.rebalance.member.state")
						.tags("application.id", "late", "state", "closed")
						.gauge()
						.value()).isZero();
				}
			});
	}

	@Test
	void metersBackOffWithoutARegistry() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceMetricsAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.run((context) -> assertThat(context).doesNotHaveBean(RebalanceMetrics.class));
	}

	/**
	 * {@code control-topic.name} names one group's control topic; a factory bean of the application's own (a binder's
	 * function) is another group, which must name its own rather than have the property ignored for it in silence.
	 */
	@Test
	void aControlTopicNameThatAFactoryBeanOfItsOwnWouldIgnoreStopsTheStartNamingTheFactoryBean() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, SecondFactoryBeanConfiguration.class)
			.withPropertyValues("incremental-rebalance.control-topic.name=ops-control")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(StartRefusedException.class)
					.hasMessageContaining("the factory bean 'ordersStreamsBuilder' runs a Kafka Streams application of "
							+ "its own")
					.hasMessageContaining("spring.cloud.stream.kafka.streams.binder.functions.<function>.configuration."
							+ "incremental.rebalance.control.topic");
			});
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, SecondFactoryBeanConfiguration.class)
			.withPropertyValues("incremental-rebalance.control-topic.name=ops-control",
					"test.orders-control-topic=orders-control")
			.run((context) -> assertThat(context.getBean(MemberRuntimes.class).all())
				.extracting(MemberRuntime::controlTopic)
				.as("each names its own")
				.containsExactly("ops-control", "orders-control"));
	}

	@Test
	void everyFactoryBeanIsItsOwnMember() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, SecondFactoryBeanConfiguration.class)
			.withPropertyValues("incremental-rebalance.drain.hand-over=eager",
					"incremental-rebalance.placement.balancing-factor=3")
			.run((context) -> {
				assertThat(context.getBean(MemberRuntimes.class).byFactoryBean()).containsOnlyKeys(
						"defaultKafkaStreamsBuilder", "ordersStreamsBuilder");
				assertThat(context.getBean(MemberRuntimes.class).all()).extracting(MemberRuntime::controlTopic)
					.as("another group: never the control topic of spring.kafka.streams")
					.containsExactly("app-rebalance-control", "orders-rebalance-control");
				StreamsBuilderFactoryBean orders = context.getBean("&ordersStreamsBuilder",
						StreamsBuilderFactoryBean.class);
				assertThat(orders.getStreamsConfiguration())
					.containsEntry(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, LearnerTaskAssignor.class.getName())
					.as("the factory bean's own key wins").containsEntry("incremental.rebalance.drain.hand.over", "conservative")
					.as("a setting it lacks").containsEntry("incremental.rebalance.balancing.factor", 3.0);
				RecordingSupplier passed = new RecordingSupplier();
				assertThat(buildStreams(context, "ordersStreamsBuilder", passed).rebalanceTrigger()).isPresent();
				assertThat(passed.mainConsumers).isNotEmpty();
			});
	}

	@Test
	void clientSupplierSetByAConfigurerIsWrapped() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, SupplierConfigurerConfiguration.class)
			.run((context) -> {
				buildStreams(context, "defaultKafkaStreamsBuilder", SupplierConfigurerConfiguration.SUPPLIER);
				assertThat(SupplierConfigurerConfiguration.SUPPLIER.mainConsumers).isNotEmpty();
			});
	}

	@Test
	void applicationsCustomizerBeansBuildAndCustomizeKafkaStreamsInsideOurs() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withBean(RecordingCustomizer.class, RecordingCustomizer::new)
			.run((context) -> {
				RecordingCustomizer application = context.getBean(RecordingCustomizer.class);
				StreamsBuilderFactoryBean factoryBean = factoryBean(context, "defaultKafkaStreamsBuilder");
				MemberStreamsCustomizer customizer = context.getBean(MemberRuntimeWiring.class)
					.customizerOf(factoryBean);
				assertThat(customizer).isNotNull();
				try (KafkaStreams streams = customizer.initKafkaStreams(topology(), runnableConfig(factoryBean),
						new DefaultKafkaClientSupplier())) {
					assertThat(application.built).containsExactly(streams);
				}
			});
	}

	@Test
	void customizerSetByALaterConfigurerStopsTheFactoryBeansStartNamingTheFix() {
		this.contextRunner
			.withUserConfiguration(StreamsConfiguration.class, TopologyConfiguration.class,
					CustomizerConfigurerConfiguration.class)
			.run((context) -> {
				StreamsBuilderFactoryBean factoryBean = factoryBean(context, "defaultKafkaStreamsBuilder");
				factoryBean.setStreamsConfiguration(runnableConfig(factoryBean));
				assertThatExceptionOfType(KafkaException.class).isThrownBy(factoryBean::start)
					.havingRootCause()
					.withMessageContaining("The Kafka Streams of 'defaultKafkaStreamsBuilder' were built by another "
							+ "KafkaStreamsCustomizer than incremental-rebalance's")
					.withMessageContaining("Declare your customizer as a KafkaStreamsCustomizer bean instead");
				assertThat(context.getBean(RecordingCustomizer.class).built).singleElement()
					.as("the Kafka Streams built past the starter are closed, not left running")
					.satisfies((streams) -> assertThat(streams.state()).isEqualTo(KafkaStreams.State.NOT_RUNNING));
				assertThat(factoryBean.isRunning()).isFalse();
			});
	}

	@Test
	void streamsGroupProtocolSetAfterTheWiringIsTheOneTheStartRunsUnder() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class).run((context) -> {
			StreamsBuilderFactoryBean factoryBean = factoryBean(context, "defaultKafkaStreamsBuilder");
			MemberStreamsCustomizer customizer = context.getBean(MemberRuntimeWiring.class).customizerOf(factoryBean);
			MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
			assertThat(runtime.groupProtocol()).isEqualTo(GroupProtocol.CLASSIC);
			Properties properties = runnableConfig(factoryBean);
			properties.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
			try (KafkaStreams streams = customizer.initKafkaStreams(topology(), properties,
					new DefaultKafkaClientSupplier())) {
				assertThat(runtime.groupProtocol()).isEqualTo(GroupProtocol.STREAMS);
			}
		});
	}

	@Test
	void factoryBeanWiredByTheApplicationIsLeftAsItIs() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, OwnWiringConfiguration.class)
			.run((context) -> {
				assertThat(streamsConfiguration(context)).containsEntry(StreamsConfig.CLIENT_TAG_PREFIX
						+ MemberIdentity.INSTANCE_TAG, OwnWiringConfiguration.RUNTIME.identity().instanceId());
				assertThat(context.getBean(MemberRuntimes.class).all()).isEmpty();
				RecordingSupplier passed = new RecordingSupplier();
				StreamsBuilderFactoryBean factoryBean = factoryBean(context, "defaultKafkaStreamsBuilder");
				try (KafkaStreams streams = context.getBean(MemberRuntimeWiring.class)
					.customizerOf(factoryBean)
					.initKafkaStreams(topology(), runnableConfig(factoryBean), passed)) {
					assertThat(passed.mainConsumers).as("built as spring-kafka builds it, with the supplier set")
						.isNotEmpty();
				}
			});
	}

	@Test
	void applicationsOwnBeansBackTheStartersOff() {
		MemberRuntimes runtimes = new MemberRuntimes();
		this.contextRunner.withConfiguration(AutoConfigurations.of(RebalanceEndpointAutoConfiguration.class))
			.withUserConfiguration(StreamsConfiguration.class)
			.withBean("ownRuntimes", MemberRuntimes.class, () -> runtimes)
			.withBean("ownEndpoint", RebalanceEndpoint.class, () -> new RebalanceEndpoint(runtimes, false))
			.withPropertyValues("management.endpoints.web.exposure.include=rebalance")
			.run((context) -> {
				assertThat(context).getBean(MemberRuntimes.class).isSameAs(runtimes);
				assertThat(context).getBeanNames(RebalanceEndpoint.class).containsExactly("ownEndpoint");
				assertThat(runtimes.all()).as("the application's runtimes get the factory bean's").hasSize(1);
			});
	}

	@Test
	void closingTheContextOnceDrainedIsDecidedWhenTheMemberClosesNotAsABeanCondition() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.drain.on-drained=stop-streams")
			.run((context) -> assertThat(context).hasSingleBean(ShutdownAfterDrain.class)
				.hasSingleBean(LeavingReadiness.class));
	}

	/**
	 * Switched off, the starter wires no factory bean; decided when the factory bean is created, not as a bean
	 * condition, so that an AOT-processed application honours the value it runs with.
	 */
	@Test
	void wiresNothingWhenDisabledAndSaysSo() {
		try (LogCapture log = LogCapture.of(NothingWiredWarning.class)) {
			this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
				.withPropertyValues("incremental-rebalance.enabled=false")
				.run((context) -> {
					assertThat(context.getBean(MemberRuntimes.class).all()).isEmpty();
					assertThat(streamsConfiguration(context)).doesNotContainKey(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG);
					assertThat(log.messages(Level.WARN)).isEmpty();
					assertThat(log.messages(Level.INFO)).singleElement()
						.asString()
						.startsWith("incremental-rebalance.enabled=false: no Kafka Streams of this application are wired");
				});
		}
	}

	@Test
	void withoutAFactoryBeanOnceRefreshedSaysNothingIsWired() {
		try (LogCapture log = LogCapture.of(NothingWiredWarning.class)) {
			this.contextRunner.run((context) -> assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.startsWith("incremental-rebalance wired no Kafka Streams")
				.contains("incremental-rebalance.enabled=false"));
		}
		try (LogCapture log = LogCapture.of(NothingWiredWarning.class)) {
			this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
				.run((context) -> assertThat(log.messages(Level.WARN)).isEmpty());
		}
	}

	/**
	 * Spring Cloud Stream's Kafka Streams binder makes a factory bean per function while singletons are created, long
	 * after auto-configuration's conditions ran: it registers a bean definition, applies every configurer, then gets
	 * the bean.
	 */
	@Test
	void factoryBeanRegisteredAfterAutoConfigurationAsTheBinderDoesIsWired() {
		this.contextRunner.withUserConfiguration(LateFactoryBeanConfiguration.class).run((context) -> {
			assertThat(context.getBean(MemberRuntimes.class).byFactoryBean()).containsOnlyKeys("stream-builder-process");
			assertThat(factoryBean(context, "stream-builder-process").getStreamsConfiguration())
				.containsEntry(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, LearnerTaskAssignor.class.getName());
			RecordingSupplier passed = new RecordingSupplier();
			assertThat(buildStreams(context, "stream-builder-process", passed).rebalanceTrigger()).isPresent();
		});
	}

	@Test
	void backsOffWithoutKafkaStreamsOnTheClasspath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(KafkaStreams.class))
			.run((context) -> assertThat(context).doesNotHaveBean(MemberRuntimeWiring.class));
	}

	private static Properties streamsConfiguration(AssertableApplicationContext context) {
		return context.getBean("&defaultKafkaStreamsBuilder", StreamsBuilderFactoryBean.class).getStreamsConfiguration();
	}

	static StreamsBuilderFactoryBean factoryBean(AssertableApplicationContext context, String name) {
		return context.getBean("&" + name, StreamsBuilderFactoryBean.class);
	}

	/**
	 * Builds (never starts) the Kafka Streams of a factory bean through the customizer the starter installed, as
	 * spring-kafka's {@code start()} does, with the client supplier spring-kafka would pass.
	 */
	private static MemberRuntime buildStreams(AssertableApplicationContext context, String name,
			KafkaClientSupplier passed) {
		StreamsBuilderFactoryBean factoryBean = factoryBean(context, name);
		MemberStreamsCustomizer customizer = context.getBean(MemberRuntimeWiring.class).customizerOf(factoryBean);
		assertThat(customizer).as("the starter's customizer in " + name).isNotNull();
		try (KafkaStreams streams = customizer.initKafkaStreams(topology(), runnableConfig(factoryBean), passed)) {
			assertThat(streams).isNotNull();
		}
		return context.getBean(MemberRuntimes.class).byFactoryBean().get(name);
	}

	private static Topology topology() {
		Topology topology = new Topology();
		topology.addSource("in", "input");
		return topology;
	}

	static Properties runnableConfig(StreamsBuilderFactoryBean factoryBean) {
		Properties properties = factoryBean.getStreamsConfiguration();
		properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		properties.put(StreamsConfig.STATE_DIR_CONFIG, stateDir());
		return properties;
	}

	private static String stateDir() {
		try {
			return Files.createTempDirectory("streams").toString();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableKafkaStreams
	static class StreamsConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class TopologyConfiguration {

		@Bean
		KStream<byte[], byte[]> input(StreamsBuilder builder) {
			return builder.stream("input");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondFactoryBeanConfiguration {

		@Bean
		StreamsBuilderFactoryBean ordersStreamsBuilder(Environment environment) {
			Map<String, Object> config = new HashMap<>(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "orders",
					StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092", "incremental.rebalance.drain.hand.over",
					"conservative"));
			String controlTopic = environment.getProperty("test.orders-control-topic");
			if (controlTopic != null) {
				config.put(LearnerConfig.CONTROL_TOPIC_CONFIG, controlTopic);
			}
			StreamsBuilderFactoryBean factoryBean = new StreamsBuilderFactoryBean(new KafkaStreamsConfiguration(config));
			factoryBean.setAutoStartup(false);
			return factoryBean;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LateFactoryBeanConfiguration {

		@Bean
		LateFactoryBeanRegistrar lateFactoryBeanRegistrar(GenericApplicationContext context,
				ObjectProvider<StreamsBuilderFactoryBeanConfigurer> configurers) {
			return new LateFactoryBeanRegistrar(context, configurers);
		}

	}

	static class LateFactoryBeanRegistrar implements InitializingBean {

		private final GenericApplicationContext context;

		private final ObjectProvider<StreamsBuilderFactoryBeanConfigurer> configurers;

		LateFactoryBeanRegistrar(GenericApplicationContext context,
				ObjectProvider<StreamsBuilderFactoryBeanConfigurer> configurers) {
			this.context = context;
			this.configurers = configurers;
		}

		@Override
		public void afterPropertiesSet() {
			StreamsBuilderFactoryBean factoryBean = new StreamsBuilderFactoryBean(new KafkaStreamsConfiguration(
					Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "process-app", StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
							"localhost:9092")));
			factoryBean.setAutoStartup(false);
			this.context.registerBean("stream-builder-process", StreamsBuilderFactoryBean.class, () -> factoryBean);
			this.configurers.orderedStream().forEach((configurer) -> configurer.configure(factoryBean));
			this.context.getBean("&stream-builder-process");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SupplierConfigurerConfiguration {

		static final RecordingSupplier SUPPLIER = new RecordingSupplier();

		@Bean
		StreamsBuilderFactoryBeanConfigurer supplierConfigurer() {
			return (factoryBean) -> factoryBean.setClientSupplier(SUPPLIER);
		}

	}

	static class RecordingSupplier extends DefaultKafkaClientSupplier {

		final List<Map<String, Object>> mainConsumers = new ArrayList<>();

		@Override
		public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
			this.mainConsumers.add(config);
			return super.getConsumer(config);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizerConfigurerConfiguration {

		@Bean
		RecordingCustomizer recordingCustomizer() {
			return new RecordingCustomizer();
		}

		@Bean
		StreamsBuilderFactoryBeanConfigurer customizerConfigurer(RecordingCustomizer customizer) {
			return (factoryBean) -> factoryBean.setKafkaStreamsCustomizer(customizer);
		}

	}

	static class RecordingCustomizer implements KafkaStreamsCustomizer {

		final List<KafkaStreams> built = new ArrayList<>();

		@Override
		public KafkaStreams initKafkaStreams(Topology topology, Properties properties,
				KafkaClientSupplier clientSupplier) {
			KafkaStreams streams = KafkaStreamsCustomizer.super.initKafkaStreams(topology, properties, clientSupplier);
			this.built.add(streams);
			return streams;
		}

		@Override
		public void customize(KafkaStreams kafkaStreams) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnWiringConfiguration {

		static final MemberRuntime RUNTIME = MemberRuntime
			.create(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "app", StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1"));

		@Bean
		StreamsBuilderFactoryBeanConfigurer ownWiring() {
			return (factoryBean) -> factoryBean
				.setStreamsConfiguration(RUNTIME.configure(factoryBean.getStreamsConfiguration()));
		}

	}

	/**
	 * Keeps stateful tasks off hosts tagged {@code host-class=small}.
	 */
	public static final class KeepOffSmallHosts implements PlacementPolicy {

		@Override
		public boolean mayRun(GroupTask task, GroupMember member) {
			return !task.stateful() || !"small".equals(member.clientTags().get("host-class"));
		}

	}

	/**
	 * Cannot be made by class name.
	 */
	public static final class NoDefaultConstructor implements PlacementPolicy {

		public NoDefaultConstructor(String unused) {
		}

	}

}
