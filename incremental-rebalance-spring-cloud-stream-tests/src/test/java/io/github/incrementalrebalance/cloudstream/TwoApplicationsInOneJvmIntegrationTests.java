package io.github.incrementalrebalance.cloudstream;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.activeTasks;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.activeTasksOf;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.member;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.restoredRecords;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Kafka Streams applications in one JVM, two functions of one binder application with an application id each
 * (orders and audit), on three instances x, y and z: one application of z is asked to leave by its id while its other
 * application keeps running there; then y shuts down as on SIGTERM and drains both of its applications.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class TwoApplicationsInOneJvmIntegrationTests {

	private static final String ORDERS = "scs-orders";

	private static final String AUDIT = "scs-audit";

	private static final int PARTITIONS = 4;

	private static final int ACCEPTABLE_LAG = 100;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	private final ActuatorClient actuator = new ActuatorClient();

	@Test
	void oneApplicationLeavesByItsIdWhileTheOtherRunsOnAndAShutdownDrainsBoth() throws Exception {
		CountingApplication orders = new CountingApplication(broker, ORDERS, PARTITIONS);
		CountingApplication audit = new CountingApplication(broker, AUDIT, PARTITIONS);
		Map<String, CountingApplication> both = Map.of("process", orders, "audit", audit);
		try (TrackingProducer ordersProducer = orders.producer();
				TrackingProducer auditProducer = audit.producer();
				ConfigurableApplicationContext x = start("x", both);
				ConfigurableApplicationContext y = start("y", both);
				ConfigurableApplicationContext z = start("z", both)) {
			orders.loadAndSettle(ordersProducer, 20 * ACCEPTABLE_LAG, TrackingProducer.MARKER_INTERVAL,
					() -> activeTasksOf(ORDERS, x, y, z));
			audit.loadAndSettle(auditProducer, 20 * ACCEPTABLE_LAG, TrackingProducer.MARKER_INTERVAL,
					() -> activeTasksOf(AUDIT, x, y, z));

			MeterRegistry meters = z.getBean(MeterRegistry.class);
			assertThat(List.of(ORDERS, AUDIT)).as("meters of each application, named by the member").allSatisfy(
					(applicationId) -> assertThat(meters.find("incremental.rebalance.tasks")
						.tags("application.id", applicationId, "instance.id", "z", "state", "active")
						.gauge()).isNotNull().satisfies((gauge) -> assertThat(gauge.value()).isPositive()));

			HttpResponse<String> unknown = this.actuator.leave(z, "{\"applicationId\":\"payments\"}");
			assertThat(unknown.statusCode()).isEqualTo(400);
			assertThat(unknown.body()).contains("applicationId 'payments' is not an application of this instance")
				.contains(ORDERS)
				.contains(AUDIT);
			assertThat(member(z, ORDERS).state()).as("a bad request changes nothing").isEqualTo(MemberState.STABLE);

			Set<TaskId> auditOfZ = activeTasks(z, AUDIT);
			Set<TaskId> ordersOfZ = activeTasks(z, ORDERS);
			Instant askedAt = Instant.now();
			HttpResponse<String> leave = this.actuator.leave(z, "{\"applicationId\":\"" + ORDERS + "\"}");

			assertThat(leave.statusCode()).as(leave.body()).isEqualTo(202);
			MemberRuntime leaving = member(z, ORDERS);
			await("z's orders drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> leaving.state() == MemberState.CLOSED);
			assertThat(leaving.drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED);
				assertThat(outcome.tasksMovedCold()).isZero();
			});
			await("x and y run every task of orders").atMost(Duration.ofMinutes(1))
				.until(() -> activeTasksOf(ORDERS, x, y).size() == PARTITIONS
						&& orders.gapMeter().allProcessedSince(ordersOfZ, Instant.now().minusMillis(300)));
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ordersOfZ, restoredRecords(x, ORDERS),
					restoredRecords(y, ORDERS));
			System.out.printf("Binder application: z's moved tasks stalled %d ms at most%n",
					orders.gapMeter().longestGap(ordersOfZ, askedAt, Instant.now()).toMillis());
			await("a survivor's group view says how z left").atMost(Duration.ofSeconds(30))
				.until(() -> this.actuator.get(x, "/actuator/rebalance/group").body(),
						(body) -> body.contains("\"instanceId\":\"z\"") && body.contains("\"outcome\":\"drained\""));
			assertThat(member(z, AUDIT).state()).as("z's audit stays").isEqualTo(MemberState.STABLE);
			assertThat(z.isActive()).as("z runs on: one of its applications left").isTrue();
			assertThat(z.getBean(ApplicationAvailability.class).getReadinessState())
				.as("z still serves its audit's queries").isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			Instant afterLeave = Instant.now();
			await("z's audit tasks keep processing").atMost(Duration.ofSeconds(30))
				.until(() -> activeTasks(z, AUDIT).equals(auditOfZ)
						&& audit.gapMeter().allProcessedSince(auditOfZ, afterLeave));

			Set<TaskId> ordersOfY = activeTasks(y, ORDERS);
			Set<TaskId> auditOfY = activeTasks(y, AUDIT);
			List<MemberRuntime> ofY = List.of(member(y, ORDERS), member(y, AUDIT));
			List<MemberState> ordersStates = statesOf(ofY.get(0));
			List<MemberState> auditStates = statesOf(ofY.get(1));

			y.close();

			assertThat(ordersStates).as("y's orders drained before its Kafka Streams closed")
				.containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			assertThat(auditStates).as("y's audit drained before its Kafka Streams closed")
				.containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			assertThat(ofY).allSatisfy((leaver) -> assertThat(
					leaver.drainOutcome()).hasValueSatisfying((outcome) -> {
						assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED);
						assertThat(outcome.tasksMovedCold()).isZero();
					}));
			await("x runs every task of orders, x and z every task of audit").atMost(Duration.ofMinutes(1))
				.until(() -> activeTasks(x, ORDERS).size() == PARTITIONS
						&& activeTasksOf(AUDIT, x, z).size() == PARTITIONS);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ordersOfY, restoredRecords(x, ORDERS));
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, auditOfY, restoredRecords(x, AUDIT),
					restoredRecords(z, AUDIT));
			orders.verifyCounts(ordersProducer);
			audit.verifyCounts(auditProducer);
		}
	}

	private ConfigurableApplicationContext start(String instance, Map<String, CountingApplication> applications) {
		return CountingBinderApplication.start(broker, instance, this.stateRoot, applications,
				"spring.cloud.stream.kafka.streams.binder.configuration.acceptable.recovery.lag=" + ACCEPTABLE_LAG,
				"incremental-rebalance.drain.on-shutdown=true", "incremental-rebalance.drain.timeout=30s");
	}

	private static List<MemberState> statesOf(MemberRuntime runtime) {
		List<MemberState> states = new CopyOnWriteArrayList<>();
		runtime.addStateListener(states::add);
		return states;
	}

}
