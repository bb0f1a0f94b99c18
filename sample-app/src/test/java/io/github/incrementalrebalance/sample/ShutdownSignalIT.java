package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.JavaCommand;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample application's jar, as Kubernetes runs it: three separate processes against the test's broker. A SIGTERM
 * (what a scale-down sends) drains one through its ready learners: it exits on its own within 30 s, its tasks restore
 * next to nothing where they move, the others run every task and every count is exact. A {@code kill -9} of another,
 * for contrast, leaves its tasks to the session timeout and a restore from scratch (nothing lost; records the killed
 * member had not committed are counted twice, as at-least-once processing does).
 */
@Tag(TestTags.BROKER)
class ShutdownSignalIT {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	/** What the JVM exits with when its shutdown hooks ran to the end after a SIGTERM (128 + 15). */
	private static final int EXIT_AFTER_SIGTERM = 143;

	private static final int KEYS_PER_TASK = 2_000;

	/** Learners are ready within this lag: what a moved task may restore at most at promotion. */
	private static final int ACCEPTABLE_LAG = 100;

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static final Pattern ACTIVE = Pattern.compile("\"ACTIVE\":(\\d+)");

	private static final Pattern RESTORED = Pattern.compile("Restored (\\d+) records of store");

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path work;

	@Test
	void sigtermDrainsThroughReadyLearnersAndExitsWhileTheOthersRunEveryTaskWhereKillWaitsAndRestores()
			throws Exception {
		broker.createTopics(PageViews.PARTITIONS, PageViews.INPUT, PageViews.OUTPUT);
		List<Member> members = new ArrayList<>();
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			for (String name : List.of("a", "b", "c")) {
				members.add(launch(name));
			}
			Member a = members.get(0);
			Member b = members.get(1);
			Member c = members.get(2);
			await("three processes share the six tasks").atMost(Duration.ofMinutes(3))
				.until(() -> members.stream().allMatch((member) -> active(member) > 0)
						&& members.stream().mapToInt(this::active).sum() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 2);
			producer.startMarkers(PageViews.PARTITIONS, Duration.ofMillis(100));
			try (MarkerWatcher markers = new MarkerWatcher()) {
				await("the group settled: no learner").atMost(Duration.ofMinutes(1))
					.until(() -> members.stream().noneMatch((member) -> rebalance(member).contains("LEARNING")));
				int movedBySigterm = active(a);
				long signalled = System.currentTimeMillis();
				long logOfB = Files.size(b.log);
				long logOfC = Files.size(c.log);
				a.process.destroy();

				assertThat(a.process.waitFor(30, TimeUnit.SECONDS)).as("a exits on its own within 30 s").isTrue();
				long exitedAfter = System.currentTimeMillis() - signalled;
				assertThat(a.process.exitValue()).as("shutdown hooks ran to the end").isEqualTo(EXIT_AFTER_SIGTERM);
				String logOfA = Files.readString(a.log);
				assertThat(logOfA).contains("a hands over, leaving the group").contains("a is closed (drained)");
				logOfA.lines()
					.filter((line) -> line.contains("i.g.i.") || line.contains("a is ") || line.contains("a hands over"))
					.forEach(System.out::println);
				await("b and c run every task").atMost(Duration.ofMinutes(1))
					.until(() -> active(b) + active(c) == PageViews.PARTITIONS);
				markers.awaitEveryTaskSince(System.currentTimeMillis());
				long restoredAfterSigterm = restored(b, logOfB) + restored(c, logOfC);
				assertThat(restoredAfterSigterm).as("restored at promotion")
					.isLessThanOrEqualTo((long) ACCEPTABLE_LAG * movedBySigterm);
				Duration sigtermStall = markers.longestGapSince(signalled);
				producer.stopMarkers();
				producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
						producer.acknowledgedCounts(), Duration.ofMinutes(2));

				producer.startMarkers(PageViews.PARTITIONS, Duration.ofMillis(100));
				await("markers flow again").atMost(Duration.ofSeconds(30))
					.until(() -> markers.longestGapSince(System.currentTimeMillis() - 1_000).toMillis() > 0);
				int movedByKill = active(b);
				long killed = System.currentTimeMillis();
				long logOfCAtKill = Files.size(c.log);
				b.process.destroyForcibly();
				assertThat(b.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
				await("c runs every task").atMost(Duration.ofMinutes(2))
					.until(() -> active(c) == PageViews.PARTITIONS);
				markers.awaitEveryTaskSince(System.currentTimeMillis());
				long restoredAfterKill = restored(c, logOfCAtKill);
				Duration killStall = markers.longestGapSince(killed);
				producer.stopMarkers();
				// at least once: a killed member's uncommitted records are processed again, so wait for none missing
				ExactCountVerifier.Mismatch afterKill = ExactCountVerifier.verifyNoneLost(broker.bootstrapServers(),
						PageViews.OUTPUT, producer.acknowledgedCounts(), Duration.ofMinutes(2));
				System.out.printf("sigterm: exited after %d ms, longest stall %d ms, restored at promotion %d "
						+ "(%d tasks moved)%nkill -9: longest stall %d ms, restored at promotion %d (%d tasks moved), "
						+ "keys lost %d, keys counted twice %d%n", exitedAfter, sigtermStall.toMillis(),
						restoredAfterSigterm, movedBySigterm, killStall.toMillis(), restoredAfterKill, movedByKill,
						afterKill.lost(), afterKill.duplicated());
				assertThat(afterKill.lost()).as("a kill loses nothing either: it costs time").isZero();
				assertThat(restoredAfterKill)
					.as("a kill moves the killed member's %d tasks cold: each restores at least its %d keys",
							movedByKill, KEYS_PER_TASK)
					.isGreaterThanOrEqualTo((long) KEYS_PER_TASK * movedByKill);
				assertThat(killStall).as("the killed member's tasks wait for the session timeout")
					.isGreaterThan(SESSION_TIMEOUT.dividedBy(2));
				assertThat(sigtermStall).as("a drain hands over within a rebalance round").isLessThan(killStall);
			}
		}
		finally {
			members.forEach((member) -> member.process.destroyForcibly());
		}
	}

	private Member launch(String name) throws IOException {
		int port = freePort();
		Path log = this.work.resolve(name + ".log");
		List<String> command = JavaCommand.of("-Xmx384m",
				"-Djava.io.tmpdir=" + this.work, "-jar", System.getProperty("sample.jar"), "--server.port=" + port,
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
				"--spring.kafka.streams.state-dir=" + this.work.resolve("state-" + name),
				"--spring.kafka.streams.properties.consumer.heartbeat.interval.ms=1000",
				"--spring.kafka.streams.properties.consumer.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
				"--spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG,
				"--incremental-rebalance.instance-id=" + name, "--sample.generate=false",
				"--sample.security.operator-password=operator-secret",
				"--sample.security.viewer-password=viewer-secret");
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new Member(name, port, process, log);
	}

	private int active(Member member) {
		Matcher matcher = ACTIVE.matcher(rebalance(member));
		return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
	}

	private String rebalance(Member member) {
		if (!member.process.isAlive()) {
			return "";
		}
		try {
			HttpResponse<String> response = this.http.send(HttpRequest
				.newBuilder(URI.create("http://localhost:" + member.port + "/actuator/rebalance"))
				.header("Authorization",
						"Basic " + Base64.getEncoder()
							.encodeToString("viewer:viewer-secret".getBytes(StandardCharsets.UTF_8)))
				.GET()
				.build(), HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == 200) ? response.body() : "";
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

	/** Records a member restored at promotion since its log had a size (the sample logs each restore). */
	private static long restored(Member member, long since) throws IOException {
		byte[] bytes = Files.readAllBytes(member.log);
		String written = new String(bytes, (int) since, bytes.length - (int) since, StandardCharsets.UTF_8);
		Matcher matcher = RESTORED.matcher(written);
		long total = 0;
		while (matcher.find()) {
			total += Long.parseLong(matcher.group(1));
		}
		return total;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private record Member(String name, int port, Process process, Path log) {
	}

	/**
	 * When each task's markers come out of the application, as a downstream consumer sees them: the longest pause
	 * between two is how long that task stood still.
	 */
	private static final class MarkerWatcher implements AutoCloseable {

		private final KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringDeserializer(),
				new LongDeserializer());

		private final Map<String, List<Long>> seen = new ConcurrentHashMap<>();

		private final Thread thread;

		MarkerWatcher() {
			List<TopicPartition> partitions = this.consumer.partitionsFor(PageViews.OUTPUT)
				.stream()
				.map((info) -> new TopicPartition(info.topic(), info.partition()))
				.toList();
			this.consumer.assign(partitions);
			this.consumer.seekToEnd(partitions);
			this.thread = new Thread(this::watch, "marker-watcher");
			this.thread.start();
		}

		private void watch() {
			try {
				while (true) {
					for (ConsumerRecord<String, Long> record : this.consumer.poll(Duration.ofMillis(50))) {
						if (TrackingProducer.isMarker(record.key())) {
							this.seen.computeIfAbsent(record.key(), (key) -> new CopyOnWriteArrayList<>())
								.add(System.currentTimeMillis());
						}
					}
				}
			}
			catch (WakeupException ex) {
				// closed
			}
			finally {
				this.consumer.close();
			}
		}

		/** Wait until a marker of every task came out after a moment: each task's latest stall has ended. */
		void awaitEveryTaskSince(long moment) {
			await("every task's markers come out again").atMost(Duration.ofMinutes(1))
				.until(() -> this.seen.size() == PageViews.PARTITIONS && this.seen.values()
					.stream()
					.allMatch((times) -> !times.isEmpty() && times.get(times.size() - 1) > moment));
		}

		Duration longestGapSince(long since) {
			long longest = 0;
			for (List<Long> times : this.seen.values()) {
				long previous = since;
				for (long time : times) {
					if (time > since) {
						longest = Math.max(longest, time - previous);
						previous = time;
					}
				}
			}
			return Duration.ofMillis(longest);
		}

		@Override
		public void close() throws InterruptedException {
			this.consumer.wakeup();
			this.thread.join(10_000);
		}

	}

}
